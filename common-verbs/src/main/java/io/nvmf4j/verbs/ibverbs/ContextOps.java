package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.ibverbs.ffi.ibv_context;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_context_ops;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

/**
 * The data-path verbs of one device context. {@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq}
 * and {@code ibv_req_notify_cq} are {@code static inline} in {@code <infiniband/verbs.h>}: they only jump through
 * {@code qp->context->ops.post_send} and friends, so there is no symbol to bind. This class reads those function
 * pointers from {@code struct ibv_context.ops} and turns them into method handles; {@link #bind} then fixes the
 * queue pair or CQ argument, once per queue pair or CQ.
 *
 * <p>The calls neither block nor call back into Java, so they are linked {@code critical}: no thread-state
 * transition per call, which matters at millions of polls per second.
 */
final class ContextOps {
    /** {@code int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)}. */
    private static final FunctionDescriptor POLL_CQ = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
    /** {@code int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only)}. */
    private static final FunctionDescriptor REQ_NOTIFY_CQ = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
    /** {@code int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)}. */
    private static final FunctionDescriptor POST_SEND = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS);
    /** {@code int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)}. */
    private static final FunctionDescriptor POST_RECV = POST_SEND;
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    final MethodHandle pollCq;
    final MethodHandle reqNotifyCq;
    final MethodHandle postSend;
    final MethodHandle postRecv;

    private ContextOps(MethodHandle pollCq, MethodHandle reqNotifyCq, MethodHandle postSend, MethodHandle postRecv) {
        this.pollCq = pollCq;
        this.reqNotifyCq = reqNotifyCq;
        this.postSend = postSend;
        this.postRecv = postRecv;
    }

    /** Reads the function pointers of {@code context} (a {@code struct ibv_context *}). */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static ContextOps of(MemorySegment context) {
        MemorySegment ctx = context.reinterpret(ibv_context.sizeof());
        MemorySegment ops = ibv_context.ops(ctx);
        return new ContextOps(
                handle(ibv_context_ops.poll_cq(ops), POLL_CQ, "poll_cq"),
                handle(ibv_context_ops.req_notify_cq(ops), REQ_NOTIFY_CQ, "req_notify_cq"),
                handle(ibv_context_ops.post_send(ops), POST_SEND, "post_send"),
                handle(ibv_context_ops.post_recv(ops), POST_RECV, "post_recv"));
    }

    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static MethodHandle handle(MemorySegment function, FunctionDescriptor descriptor, String name) {
        if (function.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("the device's ibv_context_ops." + name + " is NULL");
        }
        return Native.LINKER.downcallHandle(function, descriptor, CRITICAL);
    }

    /** {@code handle} with its first argument (the {@code ibv_qp *} or {@code ibv_cq *}) fixed. */
    static MethodHandle bind(MethodHandle handle, MemorySegment object) {
        return MethodHandles.insertArguments(handle, 0, object);
    }
}
