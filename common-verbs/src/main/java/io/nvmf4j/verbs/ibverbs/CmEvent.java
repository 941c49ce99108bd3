package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.ibverbs.ffi.rdma_cm_event;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_conn_param;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A copy of a {@code struct rdma_cm_event}, taken before the event is acknowledged (its private data lives in
 * librdmacm's memory only until {@code rdma_ack_cm_event}).
 *
 * @param type               {@code enum rdma_cm_event_type}
 * @param status             0, a negative errno, or (InfiniBand CM) a positive reject reason
 * @param id                 the {@code rdma_cm_id} the event is for (the new id for CONNECT_REQUEST)
 * @param listenId           the listening id of a CONNECT_REQUEST, else 0
 * @param privateData        {@code param.conn.private_data} (for InfiniBand/RoCE padded to the CM message size)
 * @param responderResources {@code param.conn.responder_resources}
 * @param initiatorDepth     {@code param.conn.initiator_depth}
 */
record CmEvent(int type, int status, MemorySegment id, long listenId, byte[] privateData, int responderResources,
        int initiatorDepth) {

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static CmEvent copyOf(MemorySegment event) {
        MemorySegment e = event.reinterpret(rdma_cm_event.sizeof());
        int type = rdma_cm_event.event(e);
        boolean carriesConnParam = type == ibverbs_h.RDMA_CM_EVENT_CONNECT_REQUEST()
                || type == ibverbs_h.RDMA_CM_EVENT_ESTABLISHED() || type == ibverbs_h.RDMA_CM_EVENT_REJECTED()
                || type == ibverbs_h.RDMA_CM_EVENT_CONNECT_RESPONSE();
        MemorySegment id = rdma_cm_event.id(e);
        long listenId = rdma_cm_event.listen_id(e).address();
        if (!carriesConnParam) {
            return new CmEvent(type, rdma_cm_event.status(e), id, listenId, new byte[0], 0, 0);
        }
        MemorySegment conn = rdma_cm_event.param.conn(rdma_cm_event.param(e));
        MemorySegment data = rdma_conn_param.private_data(conn);
        int length = Byte.toUnsignedInt(rdma_conn_param.private_data_len(conn));
        byte[] privateData = data.equals(MemorySegment.NULL) || length == 0 ? new byte[0]
                : data.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
        return new CmEvent(type, rdma_cm_event.status(e), id, listenId, privateData,
                Byte.toUnsignedInt(rdma_conn_param.responder_resources(conn)),
                Byte.toUnsignedInt(rdma_conn_param.initiator_depth(conn)));
    }

    /** The event's name ({@code rdma_event_str}). */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    String name() {
        return ibverbs_h.rdma_event_str(type).reinterpret(64).getString(0);
    }

    boolean is(int eventType) {
        return type == eventType;
    }

    @Override
    public String toString() {
        return name() + (status != 0 ? " (status " + status + ")" : "");
    }
}
