package io.nvmf4j.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class QueueLimitsTest {

    @Test
    void theAdminQueueOf32EntriesGoesOnTheWireAs31() {
        assertEquals(31, QueueLimits.sqsize(QueueLimits.ADMIN_QUEUE_SIZE));
    }

    @Test
    void linuxLimitsForIoQueues() {
        assertEquals(16, QueueLimits.MIN_IO_QUEUE_SIZE);
        assertEquals(1024, QueueLimits.MAX_IO_QUEUE_SIZE);
        assertEquals(128, QueueLimits.DEFAULT_IO_QUEUE_SIZE);
    }

    @Test
    void aQueueWithoutEntriesHasNoSqsize() {
        assertThrows(IllegalArgumentException.class, () -> QueueLimits.sqsize(0));
    }
}
