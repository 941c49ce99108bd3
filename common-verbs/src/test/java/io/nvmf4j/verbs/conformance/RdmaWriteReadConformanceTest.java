package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static io.nvmf4j.verbs.conformance.WorkRequests.rdmaRead;
import static io.nvmf4j.verbs.conformance.WorkRequests.rdmaWrite;
import static io.nvmf4j.verbs.conformance.WorkRequests.receive;
import static io.nvmf4j.verbs.conformance.WorkRequests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One-sided operations (RFC 5040, 5.1 RDMA Write, 5.2 RDMA Read) and the ordering rules the NVMe-oF target
 * relies on (RFC 5040, 5.5: a Send that follows an RDMA Write is delivered after the Write is placed; an RDMA
 * Read that follows an RDMA Write sees the written data).
 */
class RdmaWriteReadConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void rdmaWriteChainedBeforeSendIsVisibleWhenTheReceiveCompletes(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion data = bench.client().registerOpen(8192).fill(1);
            GuardedRegion target = bench.server().registerOpen(8192);
            GuardedRegion inbox = bench.server().registerOpen(64);
            pair.server().queuePair().postReceive(receive(100, inbox, 0, 64));

            // as the NVMe-oF target answers a read: RDMA Write of the data, then the response Send, one post
            SendWorkRequest write = rdmaWrite(1, data, 0, 8000, target.address(100), target.rkey()).signaled(false);
            write.next(send(2, data, 0, 16));
            pair.client().queuePair().postSend(write);

            WorkCompletion received = bench.server().awaitCompletion(TIMEOUT);
            assertSuccess(received, 100, WcOpcode.RECV);
            Patterns.assertSameBytes(data.segment().asSlice(0, 8000), target.segment().asSlice(100, 8000),
                    "written bytes when the following Send's receive completes");
            Patterns.assertSameBytes(new byte[100], target.segment().asSlice(0, 100), "bytes before the write");
            Patterns.assertSameBytes(new byte[92], target.segment().asSlice(8100, 92), "bytes after the write");
            target.assertGuardsIntact();
            assertSuccess(bench.client().awaitCompletion(TIMEOUT), 2, WcOpcode.SEND);
            bench.client().assertNoCompletion(Duration.ofMillis(50)); // the unsignaled write completes silently
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void rdmaReadAfterRdmaWriteReturnsTheWrittenBytes(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion data = bench.client().registerOpen(4096).fill(2);
            GuardedRegion back = bench.client().registerOpen(4096);
            GuardedRegion remote = bench.server().registerOpen(4096).fill(3);

            SendWorkRequest write = rdmaWrite(1, data, 0, 4096, remote.address(0), remote.rkey());
            write.next(rdmaRead(2, back, 0, 4096, remote.address(0), remote.rkey()));
            pair.client().queuePair().postSend(write);

            List<WorkCompletion> done = bench.client().awaitCompletions(2, TIMEOUT);
            assertSuccess(done.get(0), 1, WcOpcode.RDMA_WRITE);
            assertSuccess(done.get(1), 2, WcOpcode.RDMA_READ);
            assertEquals(4096, done.get(1).byteLength());
            Patterns.assertSameBytes(data.segment(), back.segment(), "RDMA Read issued after an RDMA Write");
            bench.server().assertNoCompletion(Duration.ofMillis(50)); // one-sided: nothing for the server
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void rdmaReadFetchesRemoteBytesWithoutAnyCallFromTheRemoteApplication(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion remote = bench.server().register(10_000, AccessFlag.REMOTE_READ).fill(4);
            GuardedRegion sink = bench.client().registerOpen(10_000);
            // the server thread does nothing from here on: the provider answers the Read Request itself
            pair.client().queuePair().postSend(rdmaRead(7, sink, 1000, 5000, remote.address(3000), remote.rkey()));

            WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
            assertSuccess(wc, 7, WcOpcode.RDMA_READ);
            assertEquals(5000, wc.byteLength());
            assertEquals(pair.client().queuePair().number(), wc.queuePairNumber());
            Patterns.assertSameBytes(remote.segment().asSlice(3000, 5000), sink.segment().asSlice(1000, 5000),
                    "bytes read");
            Patterns.assertSameBytes(new byte[1000], sink.segment().asSlice(0, 1000), "sink before the read");
            Patterns.assertSameBytes(new byte[4000], sink.segment().asSlice(6000, 4000), "sink after the read");
            sink.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void rdmaWriteGathersThreeLocalSgesIntoOneRemoteRange(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion data = bench.client().registerOpen(4096).fill(5);
            GuardedRegion remote = bench.server().registerOpen(4096);
            GuardedRegion inbox = bench.server().registerOpen(16);
            pair.server().queuePair().postReceive(receive(1, inbox, 0, 16));

            SendWorkRequest write = new SendWorkRequest(3).wrId(3)
                    .opcode(SendOpcode.RDMA_WRITE).remote(remote.address(10), remote.rkey());
            write.sgList().count(3);
            write.sgList().get(0).set(data.region(), 4000, 96);
            write.sgList().get(1).set(data.region(), 0, 1);
            write.sgList().get(2).set(data.region(), 2000, 903);
            write.next(send(4, data, 0, 16));
            pair.client().queuePair().postSend(write);

            assertSuccess(bench.server().awaitCompletion(TIMEOUT), 1, WcOpcode.RECV);
            MemorySegment expected = MemorySegment.ofArray(new byte[1000]);
            MemorySegment.copy(data.segment(), 4000, expected, 0, 96);
            MemorySegment.copy(data.segment(), 0, expected, 96, 1);
            MemorySegment.copy(data.segment(), 2000, expected, 97, 903);
            Patterns.assertSameBytes(expected, remote.segment().asSlice(10, 1000), "gathered write");
            Patterns.assertSameBytes(new byte[10], remote.segment().asSlice(0, 10), "before the write");
            Patterns.assertSameBytes(new byte[3086], remote.segment().asSlice(1010, 3086), "after the write");
            remote.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void signaledCompletionImpliesTheUnsignaledReadPostedBeforeItIsDone(ProviderUnderTest provider)
            throws Exception {
        // ibv_poll_cq: "A Work Completion indicates that a Work Request in a Work Queue, and all of the
        // outstanding unsignaled Work Requests that posted to that Work Queue ... have completed". An
        // application then reuses the Read's sink buffer, so its data must be in by then.
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            int size = 4 << 20;
            GuardedRegion remote = bench.server().register(size, AccessFlag.REMOTE_READ).fill(30);
            GuardedRegion sink = bench.client().registerOpen(size);
            GuardedRegion inbox = bench.server().registerOpen(16);
            pair.server().queuePair().postReceive(receive(1, inbox, 0, 16));
            SendWorkRequest read = rdmaRead(1, sink, 0, size, remote.address(0), remote.rkey()).signaled(false);
            read.next(send(2, sink, 0, 0));
            pair.client().queuePair().postSend(read);

            WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
            assertSuccess(wc, 2, WcOpcode.SEND);
            Patterns.assertSameBytes(remote.segment(), sink.segment(),
                    "sink of an unsignaled Read when the Send posted after it completes");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void bulkWritesAndReadsInBothDirectionsAtOnceDoNotDeadlock(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            int size = 8 << 20;
            GuardedRegion clientData = bench.client().registerOpen(size).fill(31);
            GuardedRegion clientSink = bench.client().registerOpen(size);
            GuardedRegion clientReadBack = bench.client().registerOpen(size);
            GuardedRegion serverData = bench.server().registerOpen(size).fill(32);
            GuardedRegion serverSink = bench.server().registerOpen(size);
            GuardedRegion serverReadBack = bench.server().registerOpen(size);

            // each side writes its data into the other's sink and reads the other's data, all at once
            SendWorkRequest fromClient = rdmaWrite(1, clientData, 0, size, serverSink.address(0), serverSink.rkey());
            fromClient.next(rdmaRead(2, clientReadBack, 0, size, serverData.address(0), serverData.rkey()));
            SendWorkRequest fromServer = rdmaWrite(3, serverData, 0, size, clientSink.address(0), clientSink.rkey());
            fromServer.next(rdmaRead(4, serverReadBack, 0, size, clientData.address(0), clientData.rkey()));
            pair.client().queuePair().postSend(fromClient);
            pair.server().queuePair().postSend(fromServer);

            List<WorkCompletion> clientDone = bench.client().awaitCompletions(2, TIMEOUT);
            List<WorkCompletion> serverDone = bench.server().awaitCompletions(2, TIMEOUT);
            for (WorkCompletion wc : clientDone) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
            }
            for (WorkCompletion wc : serverDone) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
            }
            Patterns.assertSameBytes(serverData.segment(), clientReadBack.segment(), "client's Read of server data");
            Patterns.assertSameBytes(clientData.segment(), serverReadBack.segment(), "server's Read of client data");
            // the Writes are placed by now: each side's Read behind its Write has completed, and the peer's
            // Read came after that Write on the same stream
            Patterns.assertSameBytes(clientData.segment(), serverSink.segment(), "client's Write into the server");
            Patterns.assertSameBytes(serverData.segment(), clientSink.segment(), "server's Write into the client");
        }
    }

    @ParameterizedTest(name = "{0}, {1} bytes")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#availableWithTransferSizes")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void rdmaWriteSendAndRdmaReadMoveEveryByteOfTheTransfer(ProviderUnderTest provider, int size) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion source = bench.client().registerOpen(size).fill(size);
            GuardedRegion readBack = bench.client().registerOpen(size);
            GuardedRegion written = bench.server().registerOpen(size);
            GuardedRegion received = bench.server().registerOpen(size);
            pair.server().queuePair().postReceive(receive(1, received, 0, size));

            SendWorkRequest write = rdmaWrite(10, source, 0, size, written.address(0), written.rkey());
            write.next(send(11, source, 0, size));
            pair.client().queuePair().postSend(write);
            WorkCompletion recv = bench.server().awaitCompletion(TIMEOUT);
            assertSuccess(recv, 1, WcOpcode.RECV);
            assertEquals(size, recv.byteLength());
            Patterns.assertSameBytes(source.segment(), written.segment(), "RDMA Write of " + size + " bytes");
            Patterns.assertSameBytes(source.segment(), received.segment(), "Send of " + size + " bytes");

            pair.client().queuePair().postSend(rdmaRead(12, readBack, 0, size, written.address(0), written.rkey()));
            List<WorkCompletion> done = bench.client().awaitCompletions(3, TIMEOUT);
            assertSuccess(done.get(0), 10, WcOpcode.RDMA_WRITE);
            assertSuccess(done.get(1), 11, WcOpcode.SEND);
            assertSuccess(done.get(2), 12, WcOpcode.RDMA_READ);
            assertEquals(size, done.get(2).byteLength());
            Patterns.assertSameBytes(source.segment(), readBack.segment(), "RDMA Read of " + size + " bytes");
            written.assertGuardsIntact();
            received.assertGuardsIntact();
            readBack.assertGuardsIntact();
        }
    }
}
