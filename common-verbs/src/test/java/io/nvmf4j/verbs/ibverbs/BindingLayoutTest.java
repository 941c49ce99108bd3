package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.verbs.ibverbs.ffi.ibv_async_event;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_comp_channel;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_context;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_context_ops;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_cq;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_device_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_mr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp_init_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_recv_wr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_send_wr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_sge;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_wc;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_cm_event;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_cm_id;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_conn_param;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_event_channel;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import org.junit.jupiter.api.Test;

/**
 * The generated layouts against the C compiler's view of the same headers. The expected numbers were printed by
 * gcc 12.2 (Debian bookworm, x86_64) from rdma-core 44's {@code <infiniband/verbs.h>} and {@code <rdma/rdma_cma.h>}
 * with this program:
 *
 * <pre>{@code
 * #include <stdio.h>
 * #include <stddef.h>
 * #include <infiniband/verbs.h>
 * #include <rdma/rdma_cma.h>
 * #define S(t) printf("sizeof(struct " #t ") = %zu\n", sizeof(struct t))
 * #define O(t,f) printf("offsetof(struct " #t ", " #f ") = %zu\n", offsetof(struct t, f))
 * int main(void) {
 *   S(ibv_sge); O(ibv_sge,addr); O(ibv_sge,length); O(ibv_sge,lkey);
 *   S(ibv_send_wr); O(ibv_send_wr,wr_id); O(ibv_send_wr,next); ... O(ibv_send_wr,wr.rdma.rkey);
 *   ... (one O() per field asserted below)
 * }
 * }</pre>
 *
 * (gcc -o off off.c && ./off). These are the offsets the provider writes work requests at and reads completions
 * from; the ops-table offsets are where it finds the {@code static inline} verbs' function pointers.
 */
class BindingLayoutTest {

    @Test
    void scatterGatherElementMatchesTheCLayout() {
        assertEquals(16, ibv_sge.sizeof());
        assertEquals(0, ibv_sge.addr$offset());
        assertEquals(8, ibv_sge.length$offset());
        assertEquals(12, ibv_sge.lkey$offset());
    }

    @Test
    void sendWorkRequestMatchesTheCLayoutIncludingTheRdmaUnionMember() {
        assertEquals(128, ibv_send_wr.sizeof());
        assertEquals(0, ibv_send_wr.wr_id$offset());
        assertEquals(8, ibv_send_wr.next$offset());
        assertEquals(16, ibv_send_wr.sg_list$offset());
        assertEquals(24, ibv_send_wr.num_sge$offset());
        assertEquals(28, ibv_send_wr.opcode$offset());
        assertEquals(32, ibv_send_wr.send_flags$offset());
        assertEquals(36, ibv_send_wr.imm_data$offset());
        assertEquals(36, ibv_send_wr.invalidate_rkey$offset());
        assertEquals(40, ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset()
                + ibv_send_wr.wr.rdma.remote_addr$offset());
        assertEquals(48, ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.rkey$offset());
    }

    @Test
    void receiveWorkRequestMatchesTheCLayout() {
        assertEquals(32, ibv_recv_wr.sizeof());
        assertEquals(0, ibv_recv_wr.wr_id$offset());
        assertEquals(8, ibv_recv_wr.next$offset());
        assertEquals(16, ibv_recv_wr.sg_list$offset());
        assertEquals(24, ibv_recv_wr.num_sge$offset());
    }

    @Test
    void workCompletionMatchesTheCLayout() {
        assertEquals(48, ibv_wc.sizeof());
        assertEquals(0, ibv_wc.wr_id$offset());
        assertEquals(8, ibv_wc.status$offset());
        assertEquals(12, ibv_wc.opcode$offset());
        assertEquals(16, ibv_wc.vendor_err$offset());
        assertEquals(20, ibv_wc.byte_len$offset());
        assertEquals(24, ibv_wc.invalidated_rkey$offset());
        assertEquals(28, ibv_wc.qp_num$offset());
        assertEquals(36, ibv_wc.wc_flags$offset());
    }

    @Test
    void contextOpsHoldTheInlineVerbsFunctionPointersWhereTheCHeaderPutsThem() {
        assertEquals(256, ibv_context_ops.sizeof());
        assertEquals(88, ibv_context_ops.poll_cq$offset());
        assertEquals(96, ibv_context_ops.req_notify_cq$offset());
        assertEquals(200, ibv_context_ops.post_send$offset());
        assertEquals(208, ibv_context_ops.post_recv$offset());
        assertEquals(0, ibv_context.device$offset());
        assertEquals(8, ibv_context.ops$offset());
    }

    @Test
    void objectsTheProviderReadsFieldsOfMatchTheCLayout() {
        assertEquals(0, ibv_cq.context$offset());
        assertEquals(8, ibv_cq.channel$offset());
        assertEquals(28, ibv_cq.cqe$offset());
        assertEquals(52, ibv_qp.qp_num$offset());
        assertEquals(56, ibv_qp.state$offset());
        assertEquals(16, ibv_mr.addr$offset());
        assertEquals(24, ibv_mr.length$offset());
        assertEquals(36, ibv_mr.lkey$offset());
        assertEquals(40, ibv_mr.rkey$offset());
        assertEquals(8, ibv_comp_channel.fd$offset());
        assertEquals(64, ibv_qp_init_attr.sizeof());
        assertEquals(8, ibv_qp_init_attr.send_cq$offset());
        assertEquals(16, ibv_qp_init_attr.recv_cq$offset());
        assertEquals(32, ibv_qp_init_attr.cap$offset());
        assertEquals(52, ibv_qp_init_attr.qp_type$offset());
        assertEquals(56, ibv_qp_init_attr.sq_sig_all$offset());
        assertEquals(232, ibv_device_attr.sizeof());
        assertEquals(124, ibv_device_attr.max_sge_rd$offset());
        assertEquals(144, ibv_device_attr.max_qp_rd_atom$offset());
    }

    @Test
    void connectionManagerStructsMatchTheCLayout() {
        assertEquals(24, rdma_conn_param.sizeof());
        assertEquals(0, rdma_conn_param.private_data$offset());
        assertEquals(8, rdma_conn_param.private_data_len$offset());
        assertEquals(9, rdma_conn_param.responder_resources$offset());
        assertEquals(10, rdma_conn_param.initiator_depth$offset());
        assertEquals(80, rdma_cm_event.sizeof());
        assertEquals(0, rdma_cm_event.id$offset());
        assertEquals(8, rdma_cm_event.listen_id$offset());
        assertEquals(16, rdma_cm_event.event$offset());
        assertEquals(20, rdma_cm_event.status$offset());
        assertEquals(24, rdma_cm_event.param$offset());
        assertEquals(0, rdma_cm_id.verbs$offset());
        assertEquals(8, rdma_cm_id.channel$offset());
        assertEquals(16, rdma_cm_id.context$offset());
        assertEquals(24, rdma_cm_id.qp$offset());
        assertEquals(32, rdma_cm_id.route$offset());
        assertEquals(0, rdma_event_channel.fd$offset());
    }

    /**
     * What the async-event thread reads and what teardown writes (gcc 12.2, rdma-core 44, same program as above:
     * sizeof/offsetof of ibv_async_event, ibv_qp_attr.qp_state/cap, ibv_context.async_fd, and the enum values
     * printed with %d). Needs libibverbs for the constants (the bindings class opens it).
     */
    @Test
    @SuppressWarnings("restricted") // FFM: opens a C library; the module is granted native access
    void asyncEventQueuePairStateAndTheirConstantsMatchTheCHeaders() {
        assertEquals(16, ibv_async_event.sizeof());
        assertEquals(0, ibv_async_event.element$offset());
        assertEquals(8, ibv_async_event.event_type$offset());
        assertEquals(144, ibv_qp_attr.sizeof());
        assertEquals(0, ibv_qp_attr.qp_state$offset());
        assertEquals(36, ibv_qp_attr.cap$offset());
        assertEquals(268, ibv_context.async_fd$offset());
        for (String soname : new String[] {IbverbsAvailability.VERBS_SONAME, IbverbsAvailability.CM_SONAME}) {
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                java.lang.foreign.SymbolLookup.libraryLookup(soname, arena);
            } catch (IllegalArgumentException e) {
                org.junit.jupiter.api.Assumptions.abort(soname + " is not installed here");
            }
        }
        assertEquals(6, ibverbs_h.IBV_QPS_ERR());
        assertEquals(1, ibverbs_h.IBV_SEND_FENCE());
        assertEquals(0, ibverbs_h.IBV_EVENT_CQ_ERR());
        assertEquals(1, ibverbs_h.IBV_EVENT_QP_FATAL());
        assertEquals(2, ibverbs_h.IBV_EVENT_QP_REQ_ERR());
        assertEquals(3, ibverbs_h.IBV_EVENT_QP_ACCESS_ERR());
        assertEquals(8, ibverbs_h.IBV_EVENT_DEVICE_FATAL());
    }
}
