package io.nvmf4j.initiator.rdma;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's online CPUs, whatever this process's affinity: {@code /sys/devices/system/cpu/online} (a list
 * such as {@code 0-1} or {@code 0,2-5}), as glibc's {@code get_nprocs()} reads it. Where it cannot be read the
 * count is this process's own ({@link Runtime#availableProcessors()}), so a caller sees no cores of its own.
 */
final class OnlineCpus {

    private static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");

    private OnlineCpus() {
    }

    static int count() {
        try {
            int n = parse(Files.readString(ONLINE));
            return n > 0 ? n : Runtime.getRuntime().availableProcessors();
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /** The number of CPUs in a kernel CPU list ({@code 0-3,8,10-11}); 0 for an empty or malformed one. */
    static int parse(String list) {
        int n = 0;
        for (String range : list.strip().split(",")) {
            if (range.isEmpty()) {
                return 0;
            }
            int dash = range.indexOf('-');
            try {
                int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
                if (first < 0 || last < first) {
                    return 0;
                }
                n += last - first + 1;
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return n;
    }
}
