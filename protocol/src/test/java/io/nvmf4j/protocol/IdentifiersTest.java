package io.nvmf4j.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdentifiersTest {

    @Test
    void queueZeroIsTheAdminQueue() {
        assertTrue(QueueId.of(0).isAdmin());
        assertFalse(QueueId.of(1).isAdmin());
        assertEquals("qid 0 (admin)", QueueId.ADMIN.toString());
        assertEquals("queue id 65536 does not fit in 16 bits (0..65535)",
                assertThrows(IllegalArgumentException.class, () -> QueueId.of(65536)).getMessage());
    }

    @Test
    void controllerIdsKnowTheDynamicAndAllocatableRanges() {
        assertTrue(ControllerId.of(0xFFFF).isDynamic());
        assertTrue(ControllerId.of(1).isAllocatable());
        assertTrue(ControllerId.of(0xFFEF).isAllocatable());
        assertFalse(ControllerId.of(0xFFF0).isAllocatable());
        assertFalse(ControllerId.of(0).isAllocatable());
        assertThrows(IllegalArgumentException.class, () -> ControllerId.of(-1));
    }

    @Test
    void commandIdsAreSixteenBits() {
        assertEquals(65535, CommandId.of(65535).value());
        assertThrows(IllegalArgumentException.class, () -> CommandId.of(65536));
    }
}
