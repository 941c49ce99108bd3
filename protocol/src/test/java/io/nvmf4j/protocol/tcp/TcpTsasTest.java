package io.nvmf4j.protocol.tcp;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Vectors from Linux {@code struct nvmf_disc_rsp_page_entry} (1024 bytes, {@code union tsas} at offset 768) and its
 * {@code struct nvmf_tcp_tsas {__u8 sectype; __u8 resv1[255];}}, with {@code enum { NVMF_TCP_SECTYPE_NONE = 0,
 * NVMF_TCP_SECTYPE_TLS12 = 1, NVMF_TCP_SECTYPE_TLS13 = 2 }}.
 */
class TcpTsasTest {

    private static String encode(TcpTsas t) {
        MemorySegment s = MemorySegment.ofArray(new byte[256]);
        s.fill((byte) 0x77);
        t.encode(s);
        return Hex.of(s);
    }

    @Test
    void sectypeValuesAreLinuxs() {
        assertEquals(256, TcpTsas.SIZE);
        assertEquals(0, TcpTsas.OFFSET_SECTYPE);
        assertEquals(0, TcpTsas.SECTYPE_NONE);
        assertEquals(1, TcpTsas.SECTYPE_TLS12);
        assertEquals(2, TcpTsas.SECTYPE_TLS13);
    }

    @Test
    void aPortWithoutTlsIsSectypeNoneAndAllReservedBytesZero() {
        assertEquals(Hex.norm("00" + zeros(255)), encode(TcpTsas.none()));
        assertEquals(TcpTsas.none(), TcpTsas.decode(Hex.segment(zeros(256))));
    }

    @Test
    void tls13IsByteZeroTwo() {
        String expected = "02" + zeros(255);
        assertEquals(Hex.norm(expected), encode(new TcpTsas(TcpTsas.SECTYPE_TLS13)));
        assertEquals(TcpTsas.SECTYPE_TLS13, TcpTsas.decode(Hex.segment(expected)).sectype());
    }

    @Test
    void inADiscoveryEntrySectypeIsByte768AndTheTsasEndsTheEntry() {
        MemorySegment raw = MemorySegment.ofArray(new byte[DiscoveryLogEntry.SIZE]);
        raw.fill((byte) 0x77);
        DiscoveryLogEntry e = DiscoveryLogEntry.wrap(raw);
        e.tcpTsas(new TcpTsas(TcpTsas.SECTYPE_TLS12));
        String expected = "77".repeat(768) + "01" + zeros(255);
        assertEquals(Hex.norm(expected), Hex.of(raw), "the fields before TSAS stay; TSAS is bytes 768..1023");
        assertEquals(TcpTsas.SECTYPE_TLS12, e.tcpTsas().sectype());
    }

    @Test
    void anUnknownSectypeFromAnotherTargetStillDecodes() {
        assertEquals(9, TcpTsas.decode(Hex.segment("09" + zeros(255))).sectype());
    }

    @Test
    void truncatedTsasIsRefused() {
        assertEquals("TCP TSAS needs 256 bytes, got 255 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> TcpTsas.decode(MemorySegment.ofArray(new byte[255]))).getMessage());
    }
}
