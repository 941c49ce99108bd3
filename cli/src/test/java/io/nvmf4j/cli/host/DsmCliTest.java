package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.protocol.io.DsmRange;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code nvmf4j dsm}'s flags become nvme-cli's ranges and CDW11 ({@code dsm()} in nvme.c 2.3): range i from the i-th
 * entries of -a/-b/-s, missing ones 0; CDW11 = --cdw11 if not 0, else AD bit 2 | IDW bit 1 | IDR bit 0. The range
 * bytes are NVM Command Set 1.0 Figure 39 (struct nvme_dsm_range: cattr, nlb, slba; little endian).
 */
class DsmCliTest {

    private static DsmCli parse(String... args) {
        DsmCli c = new DsmCli();
        new CommandLine(c).parseArgs(args);
        return c;
    }

    @Test
    void rangesAndAttributesAreNvmeClis() {
        DsmCli c = parse("-a", "0x01020304,5", "-b", "8,16,1", "-s", "0x1122334455667788", "-w", "-r");
        List<DsmRange> ranges = c.ranges(3);
        assertEquals(List.of(new DsmRange(0x01020304, 8, 0x1122334455667788L), new DsmRange(5, 16, 0),
                new DsmRange(0, 1, 0)), ranges);
        assertEquals(0x3, c.attributes());
        MemorySegment bytes = MemorySegment.ofArray(new byte[48]);
        for (int i = 0; i < 3; i++) {
            ranges.get(i).encode(bytes, i * 16L);
        }
        assertEquals("04030201" + "08000000" + "8877665544332211"
                + "05000000" + "10000000" + "0000000000000000"
                + "00000000" + "01000000" + "0000000000000000",
                HexFormat.of().formatHex(bytes.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        assertEquals(0x4, parse("-s", "1", "-b", "1", "-d").attributes());
        assertEquals(0x7, parse("-s", "1", "-b", "1", "-d", "-c", "7").attributes());
        assertEquals(0x10, parse("-s", "1", "-b", "1", "-d", "-c", "0x10").attributes(), "--cdw11 wins");
    }

    @Test
    void noRangeIsAUsageError() {
        CliRunner.Result r = CliRunner.run("dsm", "-d");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals(true, r.err().contains("No range definition provided"), r.err());
    }
}
