package io.nvmf4j.config;

/**
 * A subsystem's {@code attr} group (Linux configfs {@code attr_*}). Absent optional values are {@code null}; the
 * target then chooses as Linux does (random serial, model "Linux"-like default, version 1.3).
 *
 * @param allowAnyHost whether any host NQN may connect; Linux refuses this together with explicit allowed hosts
 * @param serial       Serial Number (Identify Controller SN), 1-20 printable ASCII characters, or null
 * @param model        Model Number (Identify Controller MN), 1-40 printable ASCII characters, or null
 * @param version      NVMe version reported in VS/Identify, "major.minor" or "major.minor.tertiary", or null
 * @param cntlidMin    lowest controller id handed out (1-65519)
 * @param cntlidMax    highest controller id handed out (cntlidMin-65519)
 * @param qidMax       highest I/O queue id a host may create (1-128), or null for the default
 * @param firmware     Firmware Revision (Identify Controller FR), 1-8 printable ASCII characters, or null
 * @param ieeeOui      IEEE OUI (Identify Controller IEEE), 0-0xFFFFFF, or null
 */
public record SubsystemAttributes(
        boolean allowAnyHost,
        String serial,
        String model,
        String version,
        int cntlidMin,
        int cntlidMax,
        Integer qidMax,
        String firmware,
        Integer ieeeOui) {

    /** NVME_CNTLID_MIN / NVME_CNTLID_MAX in Linux {@code include/linux/nvme.h}. */
    public static final int CNTLID_MIN = 1;
    public static final int CNTLID_MAX = 0xFFEF;

    public static SubsystemAttributes defaults(boolean allowAnyHost) {
        return new SubsystemAttributes(allowAnyHost, null, null, null, CNTLID_MIN, CNTLID_MAX, null, null, null);
    }
}
