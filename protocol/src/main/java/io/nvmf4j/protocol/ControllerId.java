package io.nvmf4j.protocol;

/**
 * A controller identifier (CNTLID, NVMe Base 2.0, "NVM Subsystem Entities"). On a fabric the admin-queue Connect
 * asks for
 * {@link #DYNAMIC} (FFFFh) and the target answers with the one it allocated (1..FFEFh); I/O-queue Connects name
 * that controller. FFF0h-FFFEh are reserved. Linux: {@code NVME_CNTLID_MIN/MAX/DYNAMIC}.
 */
public record ControllerId(int value) {

    public static final int MIN = 0x0001;
    public static final int MAX = 0xFFEF;
    /** "Any controller" in the admin Connect of the dynamic controller model (NVMe-oF 1.1, "Connect Command and
    /* Response"). */
    public static final ControllerId DYNAMIC = new ControllerId(0xFFFF);
    /** "Static controller model, any" is FFFEh; value 0 appears in some pre-subsystem devices. */
    public static final ControllerId STATIC_ANY = new ControllerId(0xFFFE);

    public ControllerId {
        Wire.checkUnsigned("controller id", value, 16);
    }

    public static ControllerId of(int value) {
        return value == 0xFFFF ? DYNAMIC : new ControllerId(value);
    }

    public boolean isDynamic() {
        return value == 0xFFFF;
    }

    /** True for 1..FFEFh, the values a target may allocate. */
    public boolean isAllocatable() {
        return value >= MIN && value <= MAX;
    }

    @Override
    public String toString() {
        return isDynamic() ? "cntlid FFFFh (dynamic)" : String.format("cntlid %d", value);
    }
}
