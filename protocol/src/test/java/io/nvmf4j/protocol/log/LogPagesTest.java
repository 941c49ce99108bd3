package io.nvmf4j.protocol.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Error, SMART and changed-namespace pages against literal offsets of Linux / SPDK structs. */
class LogPagesTest {

    static void le(byte[] b, int offset, long value, int width) {
        for (int i = 0; i < width; i++) {
            b[offset + i] = (byte) (value >>> (8 * i));
        }
    }

    @Test
    void sizes() {
        assertEquals(64, ErrorLogEntry.SIZE);
        assertEquals(512, SmartHealthLog.SIZE);
        assertEquals(4096, ChangedNamespaceList.SIZE);
        assertEquals(0x70, LogPageId.DISCOVERY.code());
        assertEquals(LogPageId.CHANGED_NS, LogPageId.fromCode(4).orElseThrow());
    }

    @Test
    void errorLogEntryMatchesSpdkErrorInformationEntry() {
        ErrorLogEntry e = ErrorLogEntry.allocate().errorCount(42).sqid(1).cid(0x99).statusField(0x4002)
                .parameterErrorLocation(44, 0).lba(0x1122334455L).nsid(7).trtype(1).commandSpecific(0xABCD)
                .trtypeSpecific(0x55);
        byte[] expected = new byte[64];
        le(expected, 0, 42, 8);           // error_count
        le(expected, 8, 1, 2);            // sqid
        le(expected, 10, 0x99, 2);        // cid
        le(expected, 12, 0x4002 << 1, 2); // status: phase tag in bit 0, DNR | invalid field above it
        le(expected, 14, 44, 2);          // error_location: byte 44 (CDW11), bit 0
        le(expected, 16, 0x1122334455L, 8);
        le(expected, 24, 7, 4);           // nsid
        expected[29] = 1;                 // trtype
        le(expected, 32, 0xABCD, 8);      // command_specific
        le(expected, 40, 0x55, 2);        // trtype_specific
        assertArrayEquals(expected, e.segment().toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0x4002, ErrorLogEntry.wrap(MemorySegment.ofArray(expected)).statusField());
    }

    @Test
    void errorLogEntryBeyondThePageIsAPreciseError() {
        MemorySegment page = MemorySegment.ofArray(new byte[64 * 3]);
        assertEquals(0, ErrorLogEntry.wrap(page, 2).errorCount());
        MalformedStructureException e = assertThrows(MalformedStructureException.class, () -> ErrorLogEntry.wrap(page, 3));
        assertTrue(e.getMessage().contains("192"), e.getMessage());
        assertThrows(MalformedStructureException.class, () -> ErrorLogEntry.wrap(MemorySegment.ofArray(new byte[63])));
    }

    @Test
    void smartLogFieldsSitAtLinuxNvmeSmartLogOffsets() {
        SmartHealthLog log = SmartHealthLog.allocate().criticalWarning(SmartHealthLog.WARNING_TEMPERATURE)
                .compositeTemperature(310).availableSpare(100).availableSpareThreshold(10).percentageUsed(3)
                .dataUnitsRead(BigInteger.ONE.shiftLeft(64).add(BigInteger.TWO))
                .dataUnitsWritten(BigInteger.valueOf(0x0102))
                .hostReadCommands(BigInteger.valueOf(1000)).hostWriteCommands(BigInteger.valueOf(2000))
                .powerCycles(BigInteger.valueOf(5)).powerOnHours(BigInteger.valueOf(8760))
                .unsafeShutdowns(BigInteger.ONE).mediaErrors(BigInteger.ZERO)
                .warningTemperatureTime(7).criticalTemperatureTime(1).temperatureSensor(1, 305);
        byte[] expected = new byte[512];
        expected[0] = 0x02;               // critical_warning
        le(expected, 1, 310, 2);          // temperature[2], Kelvin
        expected[3] = 100;                // avail_spare
        expected[4] = 10;                 // spare_thresh
        expected[5] = 3;                  // percent_used
        le(expected, 32, 2, 8);           // data_units_read low 64 bits
        le(expected, 40, 1, 8);           // ... high 64 bits (2^64 + 2)
        le(expected, 48, 0x0102, 8);      // data_units_written
        le(expected, 64, 1000, 8);        // host_reads
        le(expected, 80, 2000, 8);        // host_writes
        le(expected, 112, 5, 8);          // power_cycles
        le(expected, 128, 8760, 8);       // power_on_hours
        le(expected, 144, 1, 8);          // unsafe_shutdowns
        le(expected, 192, 7, 4);          // warning_temp_time
        le(expected, 196, 1, 4);          // critical_comp_time
        le(expected, 200, 305, 2);        // temp_sensor[0]
        assertArrayEquals(expected, log.segment().toArray(ValueLayout.JAVA_BYTE));
        SmartHealthLog back = SmartHealthLog.wrap(MemorySegment.ofArray(expected));
        assertEquals(BigInteger.ONE.shiftLeft(64).add(BigInteger.TWO), back.dataUnitsRead());
        assertEquals(BigInteger.valueOf(8760), back.powerOnHours());
        assertEquals(305, back.temperatureSensor(1));
    }

    @Test
    void smartLogCounterAboveLongMaxStaysUnsigned() {
        byte[] b = new byte[512];
        for (int i = 32; i < 48; i++) {
            b[i] = (byte) 0xFF;
        }
        assertEquals(BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE),
                SmartHealthLog.wrap(MemorySegment.ofArray(b)).dataUnitsRead());
        assertThrows(IllegalArgumentException.class,
                () -> SmartHealthLog.allocate().dataUnitsRead(BigInteger.ONE.shiftLeft(128)));
    }

    @Test
    void dataUnitsAreThousandsOf512ByteUnitsRoundedUp() {
        assertEquals(BigInteger.ZERO, SmartHealthLog.dataUnitsFor(BigInteger.ZERO));
        assertEquals(BigInteger.ONE, SmartHealthLog.dataUnitsFor(BigInteger.ONE));              // 1 byte -> 1 unit
        assertEquals(BigInteger.ONE, SmartHealthLog.dataUnitsFor(BigInteger.valueOf(512_000))); // exactly 1000 sectors
        assertEquals(BigInteger.TWO, SmartHealthLog.dataUnitsFor(BigInteger.valueOf(512_001)));
        assertThrows(MalformedStructureException.class, () -> SmartHealthLog.wrap(MemorySegment.ofArray(new byte[511])));
    }

    @Test
    void changedNamespaceListAndItsOverflowMarker() {
        byte[] expected = new byte[4096];
        le(expected, 0, 3, 4);
        le(expected, 4, 9, 4);
        MemorySegment seg = MemorySegment.ofArray(new byte[4096]);
        ChangedNamespaceList.of(List.of(3L, 9L)).encode(seg);
        assertArrayEquals(expected, seg.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(List.of(3L, 9L), ChangedNamespaceList.decode(MemorySegment.ofArray(expected)).nsids());

        byte[] overflow = new byte[4096];
        le(overflow, 0, 0xFFFF_FFFFL, 4);
        assertTrue(ChangedNamespaceList.decode(MemorySegment.ofArray(overflow)).overflow());
        List<Long> many = new java.util.ArrayList<>();
        for (long i = 1; i <= 1025; i++) {
            many.add(i);
        }
        ChangedNamespaceList.of(many).encode(seg);
        assertArrayEquals(overflow, seg.toArray(ValueLayout.JAVA_BYTE));

        byte[] bad = new byte[4096];
        le(bad, 0, 1, 4);
        le(bad, 4, 0xFFFF_FFFFL, 4);
        assertThrows(MalformedStructureException.class, () -> ChangedNamespaceList.decode(MemorySegment.ofArray(bad)));
        assertThrows(MalformedStructureException.class,
                () -> ChangedNamespaceList.decode(MemorySegment.ofArray(new byte[1024])));
    }
}
