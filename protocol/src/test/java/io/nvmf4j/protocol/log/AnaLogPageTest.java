package io.nvmf4j.protocol.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ANA log page against Linux {@code struct nvme_ana_rsp_hdr} and {@code struct nvme_ana_group_desc}. */
class AnaLogPageTest {

    @Test
    void pageMatchesLinuxStructs() {
        AnaLogPage page = new AnaLogPage(5, List.of(
                new AnaLogPage.Group(1, 5, AnaState.OPTIMIZED, List.of(1L, 2L)),
                new AnaLogPage.Group(2, 5, AnaState.CHANGE, List.of())));
        MemorySegment d = MemorySegment.ofArray(new byte[page.size()]);
        page.encode(d);
        byte[] expected = HexFormat.of().parseHex(
                // chgcnt          ngrps rsvd10[3]
                "0500000000000000" + "0200" + "000000000000"
                // grpid   nnsids   chgcnt           state rsvd17[15]                     nsids
                + "01000000" + "02000000" + "0500000000000000" + "01" + "00".repeat(15) + "01000000" + "02000000"
                + "02000000" + "00000000" + "0500000000000000" + "0f" + "00".repeat(15));
        assertArrayEquals(expected, d.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(page, AnaLogPage.decode(d));
        assertEquals("persistent-loss", AnaState.PERSISTENT_LOSS.label());
        assertEquals(AnaState.CHANGE, AnaState.fromLabel("change").orElseThrow());
    }

    @Test
    void aTruncatedOrLyingPageIsAPreciseError() {
        byte[] b = new byte[16 + 32];
        b[8] = 1;       // one group
        b[16 + 4] = 9;  // claims 9 NSIDs that are not there
        b[16 + 16] = 1;
        assertThrows(MalformedStructureException.class, () -> AnaLogPage.decode(MemorySegment.ofArray(b)));
        b[16 + 4] = 0;
        b[16 + 16] = 5; // reserved state
        assertThrows(MalformedStructureException.class, () -> AnaLogPage.decode(MemorySegment.ofArray(b)));
    }
}
