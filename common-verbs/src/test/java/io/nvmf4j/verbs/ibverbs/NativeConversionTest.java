package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.uring.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

/** Socket addresses and CM events as the kernel and librdmacm lay them out. */
class NativeConversionTest {

    @Test
    void ipv4SocketAddressIsASockaddrInWithPortAndAddressInNetworkOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("10.0.2.15"), 4420);
            MemorySegment sin = SocketAddresses.write(arena, address);
            // struct sockaddr_in: sa_family_t (host order) AF_INET = 2, in_port_t, struct in_addr, 8 bytes zero
            assertArrayEquals(new byte[] {2, 0, 0x11, 0x44, 10, 0, 2, 15, 0, 0, 0, 0, 0, 0, 0, 0},
                    sin.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(address, SocketAddresses.read(sin));
        }
    }

    @Test
    void ipv6SocketAddressIsASockaddrIn6() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("fe80::1"), 4420);
            MemorySegment sin6 = SocketAddresses.write(arena, address);
            assertEquals(28, sin6.byteSize());
            assertEquals(10, sin6.get(ValueLayout.JAVA_SHORT, 0), "AF_INET6");
            assertEquals(0x11, sin6.get(ValueLayout.JAVA_BYTE, 2));
            assertEquals(0x44, sin6.get(ValueLayout.JAVA_BYTE, 3));
            assertEquals((byte) 0xfe, sin6.get(ValueLayout.JAVA_BYTE, 8));
            assertEquals(1, sin6.get(ValueLayout.JAVA_BYTE, 23));
            assertEquals(address.getPort(), SocketAddresses.read(sin6).getPort());
        }
    }

    @Test
    @SuppressWarnings("restricted") // FFM: opens a C library; the module is granted native access
    void connectRequestEventIsCopiedWithPrivateDataAndReadDepths() {
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(IbverbsAvailability.CM_SONAME, arena);
        } catch (IllegalArgumentException e) {
            org.junit.jupiter.api.Assumptions.abort("librdmacm is not installed here");
        }
        try (Arena arena = Arena.ofConfined()) {
            // struct rdma_cm_event at gcc's offsets: id 0, listen_id 8, event 16, status 20, param.conn 24
            // (private_data 24, private_data_len 32, responder_resources 33, initiator_depth 34)
            MemorySegment event = arena.allocate(80, 8);
            byte[] request = {0, 0, 0, 0, 0x20, 0, 0x1f, 0}; // NVMe-oF RDMA CM request: recfmt 0, qid 0, 32/31
            MemorySegment data = arena.allocate(request.length);
            data.copyFrom(MemorySegment.ofArray(request));
            event.set(ValueLayout.JAVA_LONG, 0, 0x1000);
            event.set(ValueLayout.JAVA_LONG, 8, 0x2000);
            event.set(ValueLayout.JAVA_INT, 16, 4); // RDMA_CM_EVENT_CONNECT_REQUEST
            event.set(ValueLayout.JAVA_LONG, 24, data.address());
            event.set(ValueLayout.JAVA_BYTE, 32, (byte) request.length);
            event.set(ValueLayout.JAVA_BYTE, 33, (byte) 16);
            event.set(ValueLayout.JAVA_BYTE, 34, (byte) 8);
            CmEvent copy = CmEvent.copyOf(event);
            assertEquals(4, copy.type());
            assertEquals("RDMA_CM_EVENT_CONNECT_REQUEST", copy.name());
            assertEquals(0x1000, copy.id().address());
            assertEquals(0x2000, copy.listenId());
            assertArrayEquals(request, copy.privateData());
            assertEquals(16, copy.responderResources());
            assertEquals(8, copy.initiatorDepth());
        }
    }

    @Test
    void errnoValuesMapToTheApiCodesThatNameTheSameCondition() {
        assertEquals(io.nvmf4j.verbs.VerbsErrorCode.QUEUE_FULL, VerbsErrors.code(Errno.ENOMEM));
        assertEquals(io.nvmf4j.verbs.VerbsErrorCode.CONNECTION_REFUSED, VerbsErrors.code(Errno.ECONNREFUSED));
        assertEquals(io.nvmf4j.verbs.VerbsErrorCode.TIMED_OUT, VerbsErrors.code(Errno.ETIMEDOUT));
        assertEquals("rdma_resolve_addr failed: ENODEV", VerbsErrors.exception("rdma_resolve_addr", Errno.ENODEV).getMessage());
        for (io.nvmf4j.verbs.VerbsErrorCode code : new io.nvmf4j.verbs.VerbsErrorCode[] {
                io.nvmf4j.verbs.VerbsErrorCode.QUEUE_FULL, io.nvmf4j.verbs.VerbsErrorCode.TIMED_OUT,
                io.nvmf4j.verbs.VerbsErrorCode.CONNECTION_REFUSED, io.nvmf4j.verbs.VerbsErrorCode.CONNECTION_RESET,
                io.nvmf4j.verbs.VerbsErrorCode.NO_DEVICE}) {
            assertEquals(code, VerbsErrors.code(code.errno()), code::toString);
        }
    }
}
