package io.nvmf4j.protocol.rdma;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Vectors from Linux struct nvmf_disc_rsp_page_entry.tsas.rdma {u8 qptype; u8 prtype; u8 cms; u8 resv3[5];
 * u16 pkey; u8 resv10[246];}.
 */
class RdmaTsasTest {

    private static String encode(RdmaTsas t) {
        MemorySegment s = MemorySegment.ofArray(new byte[256]);
        s.fill((byte) 0x77);
        t.encode(s);
        return Hex.of(s);
    }

    @Test
    void tsasIs256BytesWithPkeyAt8() {
        assertEquals(256, RdmaTsas.SIZE);
        assertEquals(8, RdmaTsas.OFFSET_PKEY);
    }

    @Test
    void linuxDefaultPortIsConnectedUnspecifiedRdmaCm() {
        String expected = "01 01 01 0000000000 0000" + zeros(246);
        assertEquals(Hex.norm(expected), encode(RdmaTsas.linuxDefault()));
        assertEquals(RdmaTsas.linuxDefault(), RdmaTsas.decode(Hex.segment(expected)));
    }

    @Test
    void iwarpWithPartitionKey() {
        RdmaTsas t = RdmaTsas.of(RdmaQpType.RELIABLE_CONNECTED, RdmaProviderType.IWARP, RdmaCms.RDMA_CM, 0x8001);
        String expected = "01 05 01 0000000000 0180" + zeros(246);
        assertEquals(Hex.norm(expected), encode(t));
        RdmaTsas back = RdmaTsas.decode(Hex.segment(expected));
        assertEquals(RdmaProviderType.IWARP, back.providerType().orElseThrow());
        assertEquals("RdmaTsas[qptype=RELIABLE_CONNECTED prtype=IWARP cms=RDMA_CM pkey=8001h]", back.toString());
    }

    @Test
    void unknownValuesFromAnotherTargetStillDecode() {
        RdmaTsas t = RdmaTsas.decode(Hex.segment("02 09 01" + zeros(253)));
        assertEquals(RdmaQpType.RELIABLE_DATAGRAM, t.qpType().orElseThrow());
        assertFalse(t.providerType().isPresent());
        assertEquals("RdmaTsas[qptype=RELIABLE_DATAGRAM prtype=9 cms=RDMA_CM pkey=0000h]", t.toString());
    }

    @Test
    void providerTypesAreTheSpecValues() {
        assertEquals(1, RdmaProviderType.NOT_SPECIFIED.value());
        assertEquals(2, RdmaProviderType.INFINIBAND.value());
        assertEquals(3, RdmaProviderType.ROCE.value());
        assertEquals(4, RdmaProviderType.ROCE_V2.value());
        assertEquals(5, RdmaProviderType.IWARP.value());
        assertEquals(1, RdmaCms.RDMA_CM.value());
    }

    @Test
    void truncatedTsasIsRefused() {
        assertEquals("RDMA TSAS needs 256 bytes, got 255 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> RdmaTsas.decode(MemorySegment.ofArray(new byte[255]))).getMessage());
    }
}
