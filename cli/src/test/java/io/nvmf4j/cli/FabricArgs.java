package io.nvmf4j.cli;

import java.util.Arrays;

/**
 * The host command line's fabric options for a softiwarp target on loopback, appended after a command's own
 * arguments: {@code nvmf4j discover --traddr 127.0.0.1 --trsvcid PORT --provider softiwarp}.
 */
public final class FabricArgs {

    private FabricArgs() {
    }

    /** {@code args}, then the fabric options naming {@code 127.0.0.1:port} over softiwarp, then {@code extra}. */
    public static String[] at(int port, String[] args, String... extra) {
        String[] fabric = {"--traddr", "127.0.0.1", "--trsvcid", Integer.toString(port), "--provider", "softiwarp"};
        String[] all = Arrays.copyOf(args, args.length + fabric.length + extra.length);
        System.arraycopy(fabric, 0, all, args.length, fabric.length);
        System.arraycopy(extra, 0, all, args.length + fabric.length, extra.length);
        return all;
    }

    /** {@code args}, then the fabric options naming {@code 127.0.0.1:port} over softiwarp. */
    public static String[] at(int port, String... args) {
        return at(port, args, new String[0]);
    }
}
