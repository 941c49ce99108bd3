package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The multipath address list of perf and mount ({@code --traddr}/{@code -a A,B}): each entry an address on the
 * service id option or {@code ADDR:PORT} / {@code [IPv6]:PORT}; discovery and messages use the first entry.
 */
class PathListParsingTest {

    private static FabricOptions fabric(String... args) {
        CommandLine cl = CliRunner.commandLine();
        CommandLine.ParseResult pr = cl.parseArgs(args);
        return ((IdentifyCli) pr.subcommand().commandSpec().userObject()).fabric;
    }

    @Test
    void aCommaListGivesOnePathPerEntryWithItsOwnPortOrTheCommonOne() {
        FabricOptions f = fabric("identify", "-a", "127.0.0.1:4420, 127.0.0.2,[::1]:4422,::1", "-s", "4421");
        assertEquals(List.of(new InetSocketAddress("127.0.0.1", 4420), new InetSocketAddress("127.0.0.2", 4421),
                new InetSocketAddress("::1", 4422), new InetSocketAddress("::1", 4421)), f.pathAddresses());
        assertEquals(new InetSocketAddress("127.0.0.1", 4420), f.address(), "discovery goes to the first path");
        assertEquals("127.0.0.1:4420, 127.0.0.2,[::1]:4422,::1", f.endpoint());
    }

    @Test
    void oneAddressStaysOnePath() {
        assertEquals(List.of(new InetSocketAddress("127.0.0.1", 4420)), fabric("identify", "-a", "127.0.0.1")
                .pathAddresses());
    }

    @Test
    void oneAddressWithItsOwnPortIsThatPathForEveryUse() {
        FabricOptions f = fabric("identify", "-a", "127.0.0.1:4430", "-s", "4421");
        assertEquals(new InetSocketAddress("127.0.0.1", 4430), f.address());
        assertEquals("127.0.0.1:4430", f.endpoint());
        FabricOptions v6 = fabric("identify", "-a", "[::1]:4431");
        assertEquals(new InetSocketAddress("::1", 4431), v6.address());
        assertEquals("[::1]:4431", v6.endpoint());
        FabricOptions bare = fabric("identify", "-a", "::1", "-s", "4421");
        assertEquals(new InetSocketAddress("::1", 4421), bare.address(), "an IPv6 address alone takes -s");
        assertEquals("[::1]:4421", bare.endpoint());
    }

    @Test
    void aBadEntryIsAUsageProblemNamingIt() {
        UsageProblem p = assertThrows(UsageProblem.class,
                () -> fabric("identify", "-a", "127.0.0.1:44x,127.0.0.2").pathAddresses());
        assertTrue(p.getMessage().contains("'127.0.0.1:44x'"), p.getMessage());
        p = assertThrows(UsageProblem.class, () -> fabric("identify", "-a", "127.0.0.1,,127.0.0.2").pathAddresses());
        assertTrue(p.getMessage().contains("empty address"), p.getMessage());
        p = assertThrows(UsageProblem.class, () -> fabric("identify", "-a", "127.0.0.1:70000,x").pathAddresses());
        assertTrue(p.getMessage().contains("70000"), p.getMessage());
    }
}
