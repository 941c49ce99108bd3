package io.nvmf4j.target;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport for tests, in the spirit of Linux's nvme-loop: the "host" hands SQEs and data buffers straight to the
 * core, responses are collected in memory. Records every response and every disconnect request.
 */
final class LoopTransportQueue implements TransportQueue {

    final List<Request> responses = new CopyOnWriteArrayList<>();
    final AtomicInteger disconnects = new AtomicInteger();
    final CountDownLatch disconnected = new CountDownLatch(1);
    volatile String localAddress;
    volatile String remoteAddress;

    @Override
    public void queueResponse(Request request) {
        responses.add(request);
    }

    @Override
    public void disconnect() {
        disconnects.incrementAndGet();
        disconnected.countDown();
    }

    @Override
    public String localAddress() {
        return localAddress;
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }
}
