package io.nvmf4j.cli.host.nvmecli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.log.SmartHealthLog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/**
 * The normal and {@code -H} text of smart-log, id-ctrl and id-ns as nvme-cli 2.3 prints it (nvme_show_smart_log(),
 * nvme_show_id_ctrl() and nvme_show_id_ns() with their decoders): the expected lines are what that nvme-cli prints
 * for the same bytes.
 */
class NvmeCliTextTest {

    private static String smartText(MemorySegment log, boolean human) {
        StringWriter s = new StringWriter();
        SmartLogFormat.text(new PrintWriter(s), "127.0.0.1:4420", 0xffffffffL, log, human);
        return s.toString();
    }

    @Test
    void smartLogTextHasNvmeClisLabelsPercentagesAndDataUnitSizes() {
        SmartHealthLog log = SmartHealthLog.allocate().compositeTemperature(310)
                .dataUnitsRead(BigInteger.valueOf(0xae0dc2));
        MemorySegment s = log.segment();
        s.set(ValueLayout.JAVA_BYTE, 3, (byte) 100);   // available spare
        s.set(ValueLayout.JAVA_BYTE, 4, (byte) 10);    // threshold
        s.set(ValueLayout.JAVA_BYTE, 5, (byte) 3);     // percentage used
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 192, 5); // warning temperature time
        assertEquals("""
                Smart Log for NVME device:127.0.0.1:4420 namespace-id:ffffffff
                critical_warning			: 0
                temperature				: 37°C (310 Kelvin)
                available_spare				: 100%
                available_spare_threshold		: 10%
                percentage_used				: 3%
                endurance group critical warning summary: 0
                Data Units Read				: 11406786 (5.84 TB)
                Data Units Written			: 0 (0.00 B)
                host_read_commands			: 0
                host_write_commands			: 0
                controller_busy_time			: 0
                power_cycles				: 0
                power_on_hours				: 0
                unsafe_shutdowns			: 0
                media_errors				: 0
                num_err_log_entries			: 0
                Warning Temperature Time		: 5
                Critical Composite Temperature Time	: 0
                Thermal Management T1 Trans Count	: 0
                Thermal Management T2 Trans Count	: 0
                Thermal Management T1 Total Time	: 0
                Thermal Management T2 Total Time	: 0
                """, smartText(s, false));
    }

    @Test
    void smartLogHumanReadableSpellsOutTheCriticalWarningBits() {
        MemorySegment s = SmartHealthLog.allocate().segment();
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x09);
        String t = smartText(s, true);
        assertTrue(t.contains("""
                critical_warning			: 0x9
                      Available Spare[0]             : 1
                      Temp. Threshold[1]             : 0
                      NVM subsystem Reliability[2]   : 0
                      Read-only[3]                   : 1
                      Volatile mem. backup failed[4] : 0
                      Persistent Mem. RO[5]          : 0
                temperature"""), t);
    }

    @Test
    void siBytesRoundLikeNvmeClisUnitTests() {
        assertEquals("0.00 B", SmartLogFormat.siBytes(BigDecimal.ZERO));
        assertEquals("10.00 B", SmartLogFormat.siBytes(BigDecimal.TEN));
        assertEquals("8.38 TB", SmartLogFormat.siBytes(BigDecimal.valueOf(0xf9c546L * 512_000)));
        assertEquals("781.73 TB", SmartLogFormat.siBytes(BigDecimal.valueOf(0x5b013de8L * 512_000)));
        assertEquals("340282366.92 QB", SmartLogFormat.siBytes(new BigDecimal(BigInteger.ONE.shiftLeft(128)
                .subtract(BigInteger.ONE))));
    }

    /** What nvmf4j's target answers, in the fields -H decodes. */
    private static MemorySegment controller() {
        MemorySegment c = IdentifyController.allocate().segment();
        c.set(ValueLayout.JAVA_BYTE, 76, (byte) 0x3);                  // cmic: multi-port, multi-controller
        c.set(ValueLayout.JAVA_INT_UNALIGNED, 92, 0x900);              // oaes: ANA change, namespace attribute
        c.set(ValueLayout.JAVA_BYTE, 111, (byte) 1);                   // cntrltype: I/O controller
        c.set(ValueLayout.JAVA_SHORT_UNALIGNED, 520, (short) 0x2c);    // oncs: reservations, write zeroes, DSM
        c.set(ValueLayout.JAVA_BYTE, 525, (byte) 0x7);                 // vwc: present, flush broadcast
        c.set(ValueLayout.JAVA_INT_UNALIGNED, 536, 0x100005);          // sgls
        c.set(ValueLayout.JAVA_BYTE, 512, (byte) 0x66);                // sqes
        return c;
    }

    private static String idCtrl(boolean human) {
        StringWriter s = new StringWriter();
        IdCtrlFormat.text(new PrintWriter(s), controller(), human);
        return s.toString();
    }

    @Test
    void idCtrlHumanReadableDecodesEachBitFieldUnderItsLine() {
        String t = idCtrl(true);
        assertTrue(t.contains("""
                cmic      : 0x3
                  [3:3] : 0	ANA not supported
                  [2:2] : 0	PCI
                  [1:1] : 0x1	Multi Controller
                  [0:0] : 0x1	Multi Port

                mdts      : 0
                """), t);
        assertTrue(t.contains("""
                oncs      : 0x2c
                  [8:8] : 0	Copy Not Supported
                  [7:7] : 0	Verify Not Supported
                  [6:6] : 0	Timestamp Not Supported
                  [5:5] : 0x1	Reservations Supported
                  [4:4] : 0	Save and Select Not Supported
                  [3:3] : 0x1	Write Zeroes Supported
                  [2:2] : 0x1	Data Set Management Supported
                  [1:1] : 0	Write Uncorrectable Not Supported
                  [0:0] : 0	Compare Not Supported

                fuses     : 0
                """), t);
        assertTrue(t.contains("""
                vwc       : 0x7
                  [2:1] : 0x3	The Flush command supports NSID set to FFFFFFFFh
                  [0:0] : 0x1	Volatile Write Cache Present

                """), t);
        assertTrue(t.contains("""
                sgls      : 0x100005
                 [21:21]: 0	Transport SGL Data Block Descriptor Not Supported
                 [20:20]: 0x1	Address Offsets Supported
                 [19:19]: 0	Metadata Pointer Containing SGL Descriptor is Not Supported
                 [18:18]: 0	SGL Length Larger than Buffer Not Supported
                 [17:17]: 0	Byte-Aligned Contig. MD Buffer Not Supported
                 [16:16]: 0	SGL Bit-Bucket Not Supported
                 [15:8] : 0	SGL Descriptor Threshold
                  [2:2] : 0x1	Keyed SGL Data Block descriptor Supported
                  [1:0] : 0x1	Scatter-Gather Lists Supported. No Dword alignment required.

                mnan      : 0
                """), t);
        assertTrue(t.contains("""
                cntrltype : 1
                  [7:2] : 0	Reserved
                  [1:0] : 0x1	I/O Controller
                fguid     :"""), t);
        assertTrue(t.contains("""
                sqes      : 0x66
                  [7:4] : 0x6	Max SQ Entry Size (64)
                  [3:0] : 0x6	Min SQ Entry Size (64)

                """), t);
        assertTrue(t.contains("""
                tnvmcap   : 0
                [127:0] : 0
                	Total NVM Capacity (TNVMCAP)

                """), t);
        assertTrue(t.contains("wctemp    : 0\n [15:0] : -273°C (0 Kelvin)\tWarning Composite Temperature Threshold"
                + " (WCTEMP)\n\n"), t);
    }

    @Test
    void idCtrlWithoutHumanReadableHasNoDecodedLines() {
        String t = idCtrl(false);
        assertFalse(t.contains("[0:0]"), t);
        assertTrue(t.contains("oncs      : 0x2c\nfuses     : 0\n"), t);
    }

    private static MemorySegment namespace() {
        IdentifyNamespace ns = IdentifyNamespace.allocate();
        MemorySegment s = ns.segment();
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 131072);
        s.set(ValueLayout.JAVA_BYTE, 24, (byte) 0x12);   // nsfeat as nvmet: optimal I/O fields, NAWUN...
        s.set(ValueLayout.JAVA_BYTE, 25, (byte) 0);
        s.set(ValueLayout.JAVA_BYTE, 30, (byte) 1);      // nmic
        s.set(ValueLayout.JAVA_BYTE, 31, (byte) 0xff);   // rescap
        s.set(ValueLayout.JAVA_BYTE, 128 + 2, (byte) 9); // LBA format 0: 512-byte blocks
        return s;
    }

    @Test
    void idNsHumanReadableDecodesTheFieldsAndSpellsOutTheLbaFormats() {
        StringWriter w = new StringWriter();
        IdNsFormat.text(new PrintWriter(w), 1, namespace(), true);
        String t = w.toString();
        assertTrue(t.startsWith("""
                NVME Identify Namespace 1:
                nsze    : 0x20000
                ncap    : 0
                nuse    : 0
                nsfeat  : 0x12
                  [4:4] : 0x1	NPWG, NPWA, NPDG, NPDA, and NOWS are Supported
                  [3:3] : 0	NGUID and EUI64 fields if non-zero, Reused
                  [2:2] : 0	Deallocated or Unwritten Logical Block error Not Supported
                  [1:1] : 0x1	Namespace uses NAWUN, NAWUPF, and NACWU
                  [0:0] : 0	Thin Provisioning Not Supported

                nlbaf   : 0
                flbas   : 0
                  [6:5] : 0	Most significant 2 bits of Current LBA Format Selected
                  [4:4] : 0	Metadata Transferred in Separate Contiguous Buffer
                  [3:0] : 0	Least significant 4 bits of Current LBA Format Selected

                """), t);
        assertTrue(t.contains("""
                rescap  : 0xff
                  [7:7] : 0x1	Ignore Existing Key - Used as defined in revision 1.3 or later
                  [6:6] : 0x1	Exclusive Access - All Registrants Supported
                """), t);
        assertTrue(t.contains("nmic    : 0x1\n  [0:0] : 0x1\tNamespace Multipath Capable\n\n"), t);
        assertTrue(t.contains("\nnows    : 0\nmssrl   : 0\n"), "nvme-cli's text order: optimal I/O after nvmcap\n" + t);
        assertTrue(t.contains("\nnsattr\t: 0\nnvmsetid: 0\n"), t);
        assertTrue(t.endsWith("LBA Format  0 : Metadata Size: 0   bytes - Data Size: 512 bytes - Relative"
                + " Performance: 0 Best (in use)\n"), t);
    }

    @Test
    void idNsNormalTextKeepsTheShortLbaFormatLine() {
        StringWriter w = new StringWriter();
        IdNsFormat.text(new PrintWriter(w), 1, namespace());
        String t = w.toString();
        assertTrue(t.endsWith("lbaf  0 : ms:0   lbads:9  rp:0 (in use)\n"), t);
        assertFalse(t.contains("[4:4]"), t);
    }
}
