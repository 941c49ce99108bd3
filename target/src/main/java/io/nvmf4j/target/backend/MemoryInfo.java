package io.nvmf4j.target.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What the machine has free for memory-backed namespaces: {@code MemAvailable} of /proc/meminfo (Linux 3.14+). */
final class MemoryInfo {

    private static final Path MEMINFO = Path.of("/proc/meminfo");

    private MemoryInfo() {
    }

    /** MemAvailable in bytes, or -1 where it cannot be read (then nothing is checked before allocating). */
    static long availableBytes() {
        try {
            return availableBytes(Files.readAllLines(MEMINFO));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** MemAvailable of /proc/meminfo's lines ("MemAvailable:   22340212 kB"), in bytes; -1 when absent. */
    static long availableBytes(List<String> meminfo) {
        for (String line : meminfo) {
            if (line.startsWith("MemAvailable:")) {
                String[] f = line.substring("MemAvailable:".length()).trim().split("\\s+");
                long value = Long.parseLong(f[0]);
                return f.length > 1 && f[1].equals("kB") ? value * 1024 : value;
            }
        }
        return -1;
    }

    /** {@code bytes} in the largest binary unit that keeps one digit before the point: "10.0 TiB", "512 MiB". */
    static String human(long bytes) {
        String[] units = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        if (u == 0) {
            return bytes + " bytes";
        }
        return String.format(java.util.Locale.ROOT, v == Math.floor(v) ? "%.0f %s" : "%.1f %s", v, units[u]);
    }
}
