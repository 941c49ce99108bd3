package io.nvmf4j.initiator.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.initiator.rdma.HostCommand.Direction;
import io.nvmf4j.initiator.rdma.RdmaHostQueue.SglForm;
import org.junit.jupiter.api.Test;

/** The choice nvme_rdma_map_data() makes, on our terms. */
class SglFormTest {

    @Test
    void commandsWithoutDataCarryANullKeyedDescriptor() {
        assertEquals(SglForm.NULL_KEYED, RdmaHostQueue.sglForm(Direction.NONE, 0, 4096));
    }

    @Test
    void writesThatFitTheCapsuleGoInline() {
        assertEquals(SglForm.IN_CAPSULE, RdmaHostQueue.sglForm(Direction.HOST_TO_CONTROLLER, 4096, 4096));
        assertEquals(SglForm.KEYED, RdmaHostQueue.sglForm(Direction.HOST_TO_CONTROLLER, 4097, 4096));
    }

    @Test
    void readsAndAdminQueueWritesAlwaysUseKeyedSgls() {
        assertEquals(SglForm.KEYED, RdmaHostQueue.sglForm(Direction.CONTROLLER_TO_HOST, 512, 4096));
        assertEquals(SglForm.KEYED, RdmaHostQueue.sglForm(Direction.HOST_TO_CONTROLLER, 1024, 0));
    }
}
