package io.nvmf4j.verbs.softiwarp;

import java.nio.channels.SelectionKey;

/**
 * How the progress engine watches a queue pair's socket: its registration with the engine's Selector and whether
 * the engine stopped watching it because a polling consumer reads the socket (inline progress, see
 * {@link ProgressEngine}).
 *
 * <p>Threading: the engine thread alone writes and reads these fields (its pass over the queue pairs and its
 * Selector callback); no other thread touches them, so they are plain. (ProgressEngineFailureTest writes them from
 * outside to stage a failure, and repeats the write until the engine has seen it.)
 */
final class EngineWatch {
    /** The engine's registration of the queue pair's channel; null until the engine took the queue pair. */
    SelectionKey selectionKey;
    /** Whether the engine set the key's interest to none while a consumer reads the socket. */
    boolean muted;
}
