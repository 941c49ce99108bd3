package io.nvmf4j.protocol.log;

import static io.nvmf4j.protocol.log.LogPagesTest.le;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.rdma.RdmaCms;
import io.nvmf4j.protocol.rdma.RdmaTsas;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Offsets from Linux {@code struct nvmf_disc_rsp_page_hdr/entry} and SPDK {@code struct
 * spdk_nvmf_discovery_log_page(_entry)}: trsvcid 32, subnqn 256, traddr 512, tsas 768.
 */
class DiscoveryLogTest {

    private static final String NQN = "nqn.2024-01.io.nvmf4j:ram0";

    private static void ascii(byte[] b, int offset, String s) {
        byte[] t = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, b, offset, t.length);
    }

    /** What nvmet_format_discovery_entry() writes for an RDMA port 1 on 127.0.0.1:4420. */
    private static byte[] nvmetEntry() {
        byte[] e = new byte[1024];
        e[0] = 1;                        // trtype rdma
        e[1] = 1;                        // adrfam ipv4
        e[2] = 2;                        // subtype nvme
        e[3] = 0;                        // treq not specified
        le(e, 4, 1, 2);                  // portid
        le(e, 6, 0xFFFF, 2);             // cntlid: dynamic
        le(e, 8, 32, 2);                 // asqsz: NVME_AQ_DEPTH
        ascii(e, 32, "4420");            // trsvcid, NUL padded
        ascii(e, 256, NQN);              // subnqn
        ascii(e, 512, "127.0.0.1");      // traddr, NUL padded
        e[768] = 1;                      // rdma qptype connected
        e[769] = 1;                      // rdma prtype not specified
        e[770] = 1;                      // rdma cms rdma_cm
        return e;
    }

    @Test
    void sizes() {
        assertEquals(1024, DiscoveryLogEntry.SIZE);
        assertEquals(1024, DiscoveryLogPage.HEADER_SIZE);
        assertEquals(3072, DiscoveryLogPage.sizeFor(2));
    }

    @Test
    void entryEncodesLikeLinuxNvmet() {
        DiscoveryLogEntry e = DiscoveryLogEntry.allocate().trtype(DiscoveryLogEntry.TRTYPE_RDMA)
                .adrfam(DiscoveryLogEntry.ADRFAM_IPV4).subtype(DiscoveryLogEntry.SUBTYPE_NVME)
                .treq(DiscoveryLogEntry.TREQ_NOT_SPECIFIED).portId(1).cntlid(DiscoveryLogEntry.CNTLID_DYNAMIC)
                .asqsz(32).trsvcid("4420").subsystemNqn(Nqn.parse(NQN)).traddr("127.0.0.1")
                .rdmaTsas(RdmaTsas.linuxDefault());
        byte[] actual = e.segment().toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(nvmetEntry(), actual);
        // spot checks at the offsets the brief lists
        assertEquals(1, actual[0]);
        assertEquals(1, actual[1]);
        assertEquals(2, actual[2]);
        assertEquals(1, actual[4]);
        assertEquals('4', actual[32]);
        assertEquals('n', actual[256]);
        assertEquals('1', actual[512]);
        assertEquals(1, actual[768]);
    }

    @Test
    void entryDecodesLinuxNulPaddingAndSpdkSpacePadding() {
        DiscoveryLogEntry linux = DiscoveryLogEntry.wrap(MemorySegment.ofArray(nvmetEntry()));
        assertEquals("4420", linux.trsvcid());
        assertEquals("127.0.0.1", linux.traddr());
        assertEquals(Nqn.parse(NQN), linux.subsystemNqn());
        assertEquals(0xFFFF, linux.cntlid());
        assertEquals(RdmaTsas.linuxDefault(), linux.rdmaTsas());
        assertEquals(RdmaCms.RDMA_CM, linux.rdmaTsas().connectionManagement().orElseThrow());

        byte[] spdk = nvmetEntry();
        for (int i = 32 + 4; i < 64; i++) {
            spdk[i] = ' ';              // spdk_strcpy_pad(entry->trsvcid, .., ' ')
        }
        for (int i = 512 + 9; i < 768; i++) {
            spdk[i] = ' ';
        }
        DiscoveryLogEntry s = DiscoveryLogEntry.wrap(MemorySegment.ofArray(spdk));
        assertEquals("4420", s.trsvcid());
        assertEquals("127.0.0.1", s.traddr());
        assertTrue(s.toString().contains("trtype=rdma") && s.toString().contains("traddr=127.0.0.1"), s.toString());
    }

    @Test
    void pageHeaderAndEntriesAtTheirOffsets() {
        byte[] page = new byte[1024 + 2 * 1024];
        le(page, 0, 17, 8);              // genctr
        le(page, 8, 2, 8);               // numrec
        le(page, 16, 0, 2);              // recfmt
        System.arraycopy(nvmetEntry(), 0, page, 1024, 1024);
        byte[] second = nvmetEntry();
        second[2] = 3;                   // current discovery subsystem
        System.arraycopy(second, 0, page, 2048, 1024);

        DiscoveryLogPage p = DiscoveryLogPage.wrap(MemorySegment.ofArray(page));
        assertEquals(17, p.genctr());
        assertEquals(2, p.numrec());
        assertEquals(2, p.entries().size());
        assertEquals(DiscoveryLogEntry.SUBTYPE_CURRENT_DISCOVERY, p.entry(1).subtype());

        DiscoveryLogPage built = DiscoveryLogPage.allocate(2).genctr(17).numrec(2);
        MemorySegment.copy(MemorySegment.ofArray(nvmetEntry()), 0, built.segment(), 1024, 1024);
        MemorySegment.copy(MemorySegment.ofArray(second), 0, built.segment(), 2048, 1024);
        assertArrayEquals(page, built.segment().toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void pageShorterThanNumrecEntriesIsAPreciseError() {
        byte[] page = new byte[1024 + 1024];
        le(page, 8, 3, 8);               // claims 3 entries, holds 1
        DiscoveryLogPage p = DiscoveryLogPage.wrap(MemorySegment.ofArray(page));
        assertEquals(1, p.entriesPresent());
        MalformedStructureException e = assertThrows(MalformedStructureException.class, p::entries);
        assertTrue(e.getMessage().contains("NUMREC 3") && e.getMessage().contains("only 1"), e.getMessage());
        assertThrows(MalformedStructureException.class, () -> p.entry(1));
        assertThrows(MalformedStructureException.class, () -> p.entry(3));

        byte[] huge = new byte[1024];
        le(huge, 8, -1L, 8);             // NUMREC 2^64-1
        assertThrows(MalformedStructureException.class, () -> DiscoveryLogPage.wrap(MemorySegment.ofArray(huge)).entries());
    }

    @Test
    void truncatedHeaderAndUnknownRecordFormatAreRejected() {
        assertThrows(MalformedStructureException.class, () -> DiscoveryLogPage.wrap(MemorySegment.ofArray(new byte[1023])));
        byte[] b = new byte[1024];
        le(b, 16, 1, 2);
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> DiscoveryLogPage.wrap(MemorySegment.ofArray(b)));
        assertTrue(e.getMessage().contains("RECFMT 1"), e.getMessage());
        assertThrows(MalformedStructureException.class, () -> DiscoveryLogEntry.wrap(MemorySegment.ofArray(new byte[1000])));
    }

    @Test
    void overlongAddressIsRefusedOnEncode() {
        DiscoveryLogEntry e = DiscoveryLogEntry.allocate();
        assertThrows(IllegalArgumentException.class, () -> e.trsvcid("x".repeat(33)));
        e.trsvcid("x".repeat(32)); // fills the field exactly, no terminator needed
        assertEquals("x".repeat(32), e.trsvcid());
    }
}
