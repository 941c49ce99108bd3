package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A UDP socket on 127.0.0.1 as a raw descriptor, for the URING_CMD tests: the kernel's socket {@code uring_cmd}
 * (io_uring/cmd_net.c, 6.7+) answers {@code SOCKET_URING_OP_SIOCINQ} with the first queued datagram's length, a
 * command whose result the test can set up. Java's channels hand out no descriptor, hence socket(2) through FFM.
 */
final class UdpSockets {
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 02000000;
    /** {@code struct sockaddr_in}: family, port and address in network order, 8 bytes of zero. */
    private static final long SOCKADDR_IN = 16;
    private static final int LOOPBACK = 0x7f000001;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SOCKET = downcall("socket",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = downcall("bind",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKNAME = downcall("getsockname",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SENDTO = downcall("sendto",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));

    private UdpSockets() {
    }

    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), descriptor);
    }

    /** A UDP socket bound to 127.0.0.1 on a free port, holding one datagram of {@code length} bytes it sent itself. */
    static int withQueuedDatagram(int length) {
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) SOCKET.invokeExact(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            check(fd, "socket");
            MemorySegment address = arena.allocate(SOCKADDR_IN, 4);
            address.set(JAVA_SHORT, 0, (short) AF_INET);
            address.set(JAVA_INT, 4, Integer.reverseBytes(LOOPBACK));
            check((int) BIND.invokeExact(fd, address, (int) SOCKADDR_IN), "bind");
            MemorySegment addressLength = arena.allocateFrom(JAVA_INT, (int) SOCKADDR_IN);
            check((int) GETSOCKNAME.invokeExact(fd, address, addressLength), "getsockname");
            MemorySegment payload = arena.allocate(Math.max(1, length));
            long sent = (long) SENDTO.invokeExact(fd, payload, (long) length, 0, address, (int) SOCKADDR_IN);
            if (sent != length) {
                throw new IllegalStateException("sendto sent " + sent + " of " + length + " bytes");
            }
            return fd;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void check(int rc, String call) {
        if (rc < 0) {
            throw new IllegalStateException(call + " failed");
        }
    }
}
