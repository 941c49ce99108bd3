package io.nvmf4j.config;

/**
 * A port's {@code param} group (Linux configfs {@code param_*}). Linux initialises the sizes to -1, meaning "let the
 * transport choose"; we keep that meaning: -1 takes the value from {@link Nvmf4jSettings}.
 *
 * @param inlineDataSize bytes of in-capsule data per command, -1 for the default
 * @param maxQueueSize   entries per I/O queue, -1 for the default
 * @param mdts           maximum data transfer size as a power of two in units of 4 KiB, -1 for the default
 */
public record PortParams(int inlineDataSize, int maxQueueSize, int mdts) {

    public static final int TRANSPORT_DEFAULT = -1;

    public static PortParams defaults() {
        return new PortParams(TRANSPORT_DEFAULT, TRANSPORT_DEFAULT, TRANSPORT_DEFAULT);
    }

    /** The in-capsule data size this port really offers, given the daemon-wide settings. */
    public int effectiveInlineDataSize(Nvmf4jSettings settings) {
        return inlineDataSize >= 0 ? inlineDataSize : settings.inlineDataSize();
    }

    public int effectiveMaxQueueSize(Nvmf4jSettings settings) {
        return maxQueueSize >= 0 ? maxQueueSize : settings.maxQueueSize();
    }

    public int effectiveMdts(Nvmf4jSettings settings) {
        return mdts >= 0 ? mdts : settings.mdts();
    }
}
