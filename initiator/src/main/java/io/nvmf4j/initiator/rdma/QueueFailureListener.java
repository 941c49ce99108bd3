package io.nvmf4j.initiator.rdma;

/** Told once per connection when a queue's connection breaks (on the queue's completion thread). */
@FunctionalInterface
public interface QueueFailureListener {
    void queueFailed(RdmaHostQueue queue, String reason);
}
