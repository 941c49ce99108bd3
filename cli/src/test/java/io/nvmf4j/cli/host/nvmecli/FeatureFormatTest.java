package io.nvmf4j.cli.host.nvmecli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * nvme-cli 2.3's get-feature lines: {@code printf("get-feature:%#0*x (%s), %s value:%#0*x\n", fid ? 4 : 2, fid,
 * ..., result ? 10 : 8, result)}. C's '#' flag puts "0x" before non-zero values only, so a zero value is eight
 * zeros; these are the strings glibc prints for those arguments.
 */
class FeatureFormatTest {

    @Test
    void theHeaderIsPrintfsAlternateHexForm() {
        assertEquals("get-feature:0x07 (Number of Queues), Current value:0x001f001f",
                FeatureFormat.header(7, 0, 0x001f001f));
        assertEquals("get-feature:0x0b (Async Event Configuration), Current value:00000000",
                FeatureFormat.header(0x0b, 0, 0));
        assertEquals("get-feature:0x0f (Keep Alive Timer), Default value:0x00001d4c",
                FeatureFormat.header(0x0f, 1, 7500));
        assertEquals("get-feature:0x81 (Host Identifier), Supported capabilities value:0x00000005",
                FeatureFormat.header(0x81, 3, 5));
        assertEquals("get-feature:0xc1 (Unknown), Changed value:0x80000000",
                FeatureFormat.header(0xc1, 8, 0x80000000));
        assertEquals("00", FeatureFormat.alternateHex(2, 0));
    }

    @Test
    void humanReadableFieldsAreNvmeClis() {
        assertEquals(List.of("\tNumber of IO Completion Queues Allocated (NCQA): 32",
                "\tNumber of IO Submission Queues Allocated (NSQA): 32"), FeatureFormat.fields(7, 0x001f001f, null));
        assertEquals(List.of("\tKeep Alive Timeout (KATO) in milliseconds: 5000"), FeatureFormat.fields(0xf, 5000,
                null));
        List<String> aec = FeatureFormat.fields(0xb, 0x100, null);
        assertEquals("\tNamespace Attribute Notices                               : Send async event", aec.get(7));
        assertEquals("\tSMART / Health Critical Warnings                          : Do not send async event",
                aec.get(8));
        assertEquals(List.of("  Feature is saveable", "  Feature is changeable"), FeatureFormat.selectResult(5));
    }

    @Test
    void dataLengthsAreLibnvmes() {
        assertEquals(0, FeatureFormat.dataLength(7, 0));
        assertEquals(8, FeatureFormat.dataLength(0x81, 0));
        assertEquals(16, FeatureFormat.dataLength(0x81, 1));
        assertEquals(8, FeatureFormat.dataLength(0x0e, 0));
        assertEquals(4096, FeatureFormat.dataLength(0x03, 0));
    }
}
