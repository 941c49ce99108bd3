package io.nvmf4j.initiator;

/** Told once per connection when a queue's connection breaks (on the queue's completion thread). */
@FunctionalInterface
public interface QueueFailureListener {
    void queueFailed(HostQueue queue, String reason);
}
