package io.nvmf4j.verbs.softiwarp;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.SocketChannel;

/**
 * The file descriptor number under a {@link SocketChannel}, for a consumer that waits for the socket's readiness in
 * its own poll set (an io_uring {@code IORING_OP_POLL_ADD}) rather than have the progress engine's selector wait for
 * it and wake it: {@link SoftiwarpCompletionQueue#requestNotifyWatching}. The JDK keeps the number in
 * {@code sun.nio.ch.SelChImpl.getFDVal()}, which it exports only on request: {@code --add-exports
 * java.base/sun.nio.ch=io.nvmf4j.verbs} (or {@code =ALL-UNNAMED} on the class path; nvmf4j's jar says so in its
 * manifest, {@code Add-Exports}). Without it there is no descriptor, and consumers are woken the usual way.
 */
final class ChannelDescriptor {
    private static final MethodHandle FD_VAL = find();

    private ChannelDescriptor() {
    }

    private static MethodHandle find() {
        try {
            Class<?> selChImpl = Class.forName("sun.nio.ch.SelChImpl");
            return MethodHandles.lookup().findVirtual(selChImpl, "getFDVal", MethodType.methodType(int.class))
                    .asType(MethodType.methodType(int.class, SocketChannel.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.getLogger(ChannelDescriptor.class.getName()).log(Level.DEBUG,
                    "no socket descriptors for io_uring waiters (java.base/sun.nio.ch not exported): {0}",
                    e.toString());
            return null;
        }
    }

    /** Whether descriptors can be had at all (the package is exported to this module). */
    static boolean available() {
        return FD_VAL != null;
    }

    /** The channel's descriptor, or -1 when it cannot be had (not exported, or not the JDK's socket channel). */
    static int of(SocketChannel channel) {
        if (FD_VAL == null || channel == null) {
            return -1;
        }
        try {
            return (int) FD_VAL.invokeExact(channel);
        } catch (ClassCastException e) {
            return -1; // another provider's channel
        } catch (Throwable e) {
            throw new IllegalStateException("getFDVal failed", e);
        }
    }
}
