package io.nvmf4j.target.rdma;

/**
 * What {@link QueueSlotTable#reserve} answers a new connection: the slot its work request ids will name and the
 * slot's generation ({@link Reserved}), or why there is none ({@link Refused}; the connection is then refused with
 * NO_RSC). Taken once per accepted connection on the listener's thread, never per command: the record of a
 * reservation is the only allocation, and a refusal allocates nothing.
 */
sealed interface SlotReservation {

    /** A slot and the completion-queue room of a queue's Connect phase are reserved. */
    record Reserved(int slot, int generation) implements SlotReservation {
    }

    /** Why no slot was reserved. */
    enum Refused implements SlotReservation {
        /** The completion queue (or the slot table) is full. */
        NO_ROOM,
        /** Too many unconnected queues in this poll group or from this peer address. */
        UNCONNECTED_LIMIT
    }
}
