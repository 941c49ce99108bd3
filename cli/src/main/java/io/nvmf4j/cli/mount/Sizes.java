package io.nvmf4j.cli.mount;

/** Byte counts for people: binary units, one decimal. */
final class Sizes {

    private Sizes() {
    }

    static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? bytes + " B" : (v == Math.rint(v) ? String.format("%.0f %s", v, units[u])
                : String.format("%.1f %s", v, units[u]));
    }
}
