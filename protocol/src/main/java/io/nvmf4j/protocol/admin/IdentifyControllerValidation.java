package io.nvmf4j.protocol.admin;

import static io.nvmf4j.protocol.admin.IdentifyController.FR_LENGTH;
import static io.nvmf4j.protocol.admin.IdentifyController.MN_LENGTH;
import static io.nvmf4j.protocol.admin.IdentifyController.OFFSET_FR;
import static io.nvmf4j.protocol.admin.IdentifyController.OFFSET_MN;
import static io.nvmf4j.protocol.admin.IdentifyController.OFFSET_SN;
import static io.nvmf4j.protocol.admin.IdentifyController.PSD_COUNT;
import static io.nvmf4j.protocol.admin.IdentifyController.SN_LENGTH;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;

/**
 * What a host checks in an {@link IdentifyController} before using the controller (see
 * {@link IdentifyController#validate()}): the identity strings, NPSS, the queue entry sizes NVMe-oF fixes and the
 * capsule sizes.
 */
final class IdentifyControllerValidation {

    private IdentifyControllerValidation() {
    }

    /**
     * SN, MN and FR are printable ASCII (NVMe Base 2.0, 1.5), NPSS names at most 32 states, SQES/CQES admit the fixed
     * 64/16-byte entries that NVMe-oF requires (NVMe-oF 1.1, 2.2), and IOCCSZ is at least 4 (64 bytes) when set.
     */
    static void validate(IdentifyController id) {
        MemorySegment segment = id.segment();
        AsciiField.requirePrintable(segment, OFFSET_SN, SN_LENGTH, "SN");
        AsciiField.requirePrintable(segment, OFFSET_MN, MN_LENGTH, "MN");
        AsciiField.requirePrintable(segment, OFFSET_FR, FR_LENGTH, "FR");
        if (id.npss() >= PSD_COUNT) {
            throw new MalformedStructureException(
                    "NPSS " + id.npss() + " (0's based) exceeds the 32 power state descriptors");
        }
        int sqes = id.sqes();
        if (sqes != 0 && ((sqes & 0xF) > 6 || (sqes >>> 4) < 6)) {
            throw new MalformedStructureException(String.format("SQES %02xh does not admit 64-byte entries", sqes));
        }
        int cqes = id.cqes();
        if (cqes != 0 && ((cqes & 0xF) > 4 || (cqes >>> 4) < 4)) {
            throw new MalformedStructureException(String.format("CQES %02xh does not admit 16-byte entries", cqes));
        }
        if (id.ioccsz() != 0 && id.ioccsz() < 4) {
            throw new MalformedStructureException("IOCCSZ " + id.ioccsz() + " is below the minimum of 4 (64 bytes)");
        }
        if (id.iorcsz() != 0 && id.iorcsz() < 1) {
            throw new MalformedStructureException("IORCSZ " + id.iorcsz() + " is below the minimum of 1 (16 bytes)");
        }
    }
}
