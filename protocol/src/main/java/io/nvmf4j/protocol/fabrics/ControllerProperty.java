package io.nvmf4j.protocol.fabrics;

import java.util.Optional;

/**
 * The controller properties a fabrics host reaches with Property Get/Set (NVMe Base 2.0, "Controller
 * Properties"; on a fabric they replace the PCIe registers of {@code struct nvme_bar}). Offsets are
 * Linux {@code NVME_REG_*}. The PCIe-only registers (INTMS, INTMC, AQA, ASQ, ACQ, CMB*) are reserved on a fabric.
 */
public enum ControllerProperty {
    /** Controller Capabilities, see {@link ControllerCapabilities}. */
    CAP(0x00, PropertySize.EIGHT_BYTES),
    /** Version, see {@link NvmeVersion}. */
    VS(0x08, PropertySize.FOUR_BYTES),
    /** Controller Configuration, see {@link ControllerConfiguration}. */
    CC(0x14, PropertySize.FOUR_BYTES),
    /** Controller Status, see {@link ControllerStatus}. */
    CSTS(0x1C, PropertySize.FOUR_BYTES),
    /** NVM Subsystem Reset: writing 4E564D65h ("NVMe") resets the subsystem when CAP.NSSRS is set. */
    NSSR(0x20, PropertySize.FOUR_BYTES);

    /** The value that, written to NSSR, requests an NVM subsystem reset. */
    public static final int NSSR_RESET_VALUE = 0x4E564D65;

    private final int offset;
    private final PropertySize size;

    ControllerProperty(int offset, PropertySize size) {
        this.offset = offset;
        this.size = size;
    }

    public int offset() {
        return offset;
    }

    public PropertySize size() {
        return size;
    }

    /** The property at an OFST value, empty for reserved or PCIe-only offsets. */
    public static Optional<ControllerProperty> at(int offset) {
        for (ControllerProperty p : values()) {
            if (p.offset == offset) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
