package io.nvmf4j.initiator.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.initiator.NvmeRequest.Direction;
import io.nvmf4j.initiator.rdma.RequestTable.SglForm;
import org.junit.jupiter.api.Test;

/** The choice nvme_rdma_map_data() makes, on our terms. */
class SglFormTest {

    @Test
    void commandsWithoutDataCarryANullKeyedDescriptor() {
        assertEquals(SglForm.NULL_KEYED, RequestTable.sglForm(Direction.NONE, 0, 4096));
    }

    @Test
    void writesThatFitTheCapsuleGoInline() {
        assertEquals(SglForm.IN_CAPSULE, RequestTable.sglForm(Direction.HOST_TO_CONTROLLER, 4096, 4096));
        assertEquals(SglForm.KEYED, RequestTable.sglForm(Direction.HOST_TO_CONTROLLER, 4097, 4096));
    }

    @Test
    void readsAndAdminQueueWritesAlwaysUseKeyedSgls() {
        assertEquals(SglForm.KEYED, RequestTable.sglForm(Direction.CONTROLLER_TO_HOST, 512, 4096));
        assertEquals(SglForm.KEYED, RequestTable.sglForm(Direction.HOST_TO_CONTROLLER, 1024, 0));
    }
}
