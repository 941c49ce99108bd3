package io.nvmf4j.initiator.fake;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;

/**
 * The {@link ScriptedController}'s answer to one command: the status and result of its completion queue entry, and
 * how many bytes of the queue's buffer go to the host before it (0: none).
 */
record Response(Status status, long result, int toHost) {
    static Response ok(long result) {
        return new Response(Status.SUCCESS, result, 0);
    }

    static Response toHost(int bytes) {
        return new Response(Status.SUCCESS, 0, bytes);
    }

    static Response error(StatusCode code) {
        return new Response(code.withDnr(), 0, 0);
    }
}
