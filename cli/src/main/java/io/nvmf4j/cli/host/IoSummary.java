package io.nvmf4j.cli.host;

import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.initiator.Namespace;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/**
 * What read/write print when done: nvme-cli's {@code " latency: read: N us"} on stdout with {@code -t}, and its
 * {@code "read: Success"} on stderr (followed here by the range and the time), or with {@code -o json} one summary
 * object on stdout.
 */
final class IoSummary {

    private IoSummary() {
    }

    static void report(CommandLine cl, String op, Namespace ns, BlockRangeOptions range, long blocks, long bytes,
            long nanos, boolean json) {
        PrintWriter out = cl.getOut();
        if (range.latency) {
            out.printf(" latency: %s: %d us%n", op, nanos / 1000);
            out.flush();
        }
        if (json) {
            out.print(JsonC.print(summary(op, ns, range.startBlock, blocks, bytes, nanos / 1e9)));
            out.flush();
        } else {
            cl.getErr().println(String.format(Locale.ROOT,
                    "%s: Success, nsid %d, %d blocks of %d bytes at LBA %d (%d bytes, %.3f s)", op, ns.nsid(),
                    blocks, ns.blockSize(), range.startBlock, bytes, nanos / 1e9));
            cl.getErr().flush();
        }
    }

    static Map<String, Object> summary(String op, Namespace ns, long slba, long blocks, long bytes, double seconds) {
        Map<String, Object> o = JsonC.object();
        o.put("operation", op);
        o.put("status", "Success");
        o.put("nsid", ns.nsid());
        o.put("start_block", slba);
        o.put("blocks", blocks);
        o.put("block_size", ns.blockSize());
        o.put("bytes", bytes);
        o.put("seconds", seconds);
        return o;
    }
}
