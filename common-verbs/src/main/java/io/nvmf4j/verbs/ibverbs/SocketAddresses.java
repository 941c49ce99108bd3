package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.ibverbs.ffi.rdma_addr;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_cm_id;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_route;
import io.nvmf4j.verbs.ibverbs.ffi.sockaddr_in;
import io.nvmf4j.verbs.ibverbs.ffi.sockaddr_in6;
import io.nvmf4j.verbs.ibverbs.ffi.sockaddr_storage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/** {@code InetSocketAddress} to and from {@code struct sockaddr_in}/{@code sockaddr_in6} (port and address in network order). */
final class SocketAddresses {
    static final short AF_INET = 2;
    static final short AF_INET6 = 10;
    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long ROUTE_ADDR = rdma_cm_id.route$offset() + rdma_route.addr$offset();
    private static final long SRC = ROUTE_ADDR + rdma_addr.src_addr$offset();
    private static final long DST = ROUTE_ADDR + rdma_addr.dst_addr$offset();

    private SocketAddresses() {
    }

    /** A {@code sockaddr_in} or {@code sockaddr_in6} for {@code address}, allocated in {@code arena}. */
    static MemorySegment write(Arena arena, InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address " + address);
        }
        if (ip instanceof Inet4Address) {
            MemorySegment sin = arena.allocate(sockaddr_in.layout());
            sin.set(ValueLayout.JAVA_SHORT, sockaddr_in.sin_family$offset(), AF_INET);
            sin.set(PORT, sockaddr_in.sin_port$offset(), (short) address.getPort());
            MemorySegment.copy(ip.getAddress(), 0, sin, ValueLayout.JAVA_BYTE, sockaddr_in.sin_addr$offset(), 4);
            return sin;
        }
        MemorySegment sin6 = arena.allocate(sockaddr_in6.layout());
        sin6.set(ValueLayout.JAVA_SHORT, sockaddr_in6.sin6_family$offset(), AF_INET6);
        sin6.set(PORT, sockaddr_in6.sin6_port$offset(), (short) address.getPort());
        MemorySegment.copy(ip.getAddress(), 0, sin6, ValueLayout.JAVA_BYTE, sockaddr_in6.sin6_addr$offset(), 16);
        sin6.set(ValueLayout.JAVA_INT, sockaddr_in6.sin6_scope_id$offset(), ((Inet6Address) ip).getScopeId());
        return sin6;
    }

    /** Reads a {@code sockaddr}; null for a family other than IPv4/IPv6 (e.g. AF_IB) or an empty one. */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static InetSocketAddress read(MemorySegment sockaddr) {
        MemorySegment s = sockaddr.reinterpret(sockaddr_storage.sizeof());
        short family = s.get(ValueLayout.JAVA_SHORT, 0);
        try {
            if (family == AF_INET) {
                byte[] ip = new byte[4];
                MemorySegment.copy(s, ValueLayout.JAVA_BYTE, sockaddr_in.sin_addr$offset(), ip, 0, 4);
                return new InetSocketAddress(InetAddress.getByAddress(ip),
                        Short.toUnsignedInt(s.get(PORT, sockaddr_in.sin_port$offset())));
            }
            if (family == AF_INET6) {
                byte[] ip = new byte[16];
                MemorySegment.copy(s, ValueLayout.JAVA_BYTE, sockaddr_in6.sin6_addr$offset(), ip, 0, 16);
                return new InetSocketAddress(InetAddress.getByAddress(ip),
                        Short.toUnsignedInt(s.get(PORT, sockaddr_in6.sin6_port$offset())));
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        return null;
    }

    /** The local address of an rdma_cm id ({@code rdma_get_local_addr}, inline in rdma_cma.h). */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static InetSocketAddress local(MemorySegment id) {
        return read(id.reinterpret(rdma_cm_id.sizeof()).asSlice(SRC));
    }

    /** The peer address of an rdma_cm id ({@code rdma_get_peer_addr}, inline in rdma_cma.h). */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static InetSocketAddress peer(MemorySegment id) {
        return read(id.reinterpret(rdma_cm_id.sizeof()).asSlice(DST));
    }
}
