package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * Property Get (NVMe Base 2.0, "Property Get command"; Linux {@code struct nvmf_property_get_command}): reads
 * a controller
 * property, which the response returns in CQE DW0 (4 bytes) or DW0-1 (8 bytes).
 *
 * <pre>
 *  0 opcode 7Fh | 2..3 CID | 4 FCTYPE 04h | 24..39 SGL1 (no data: null keyed)
 *  40 ATTRIB (bits 2:0 size) | 41..43 reserved | 44..47 OFST | 48..63 reserved
 * </pre>
 *
 * @param cid    command identifier
 * @param size   4 or 8 bytes
 * @param offset the property's offset (OFST), see {@link ControllerProperty}
 */
public record PropertyGetCommand(CommandId cid, PropertySize size, int offset) implements FabricsCommand {

    public PropertyGetCommand {
        java.util.Objects.requireNonNull(cid, "cid");
        java.util.Objects.requireNonNull(size, "size");
    }

    public static final int OFFSET_ATTRIB = PropertySize.OFFSET_ATTRIB;
    public static final int OFFSET_OFST = 44;

    /** Reads {@code property} with its own size, as Linux {@code nvmf_reg_read32/64()} do. */
    public static PropertyGetCommand of(CommandId cid, ControllerProperty property) {
        return new PropertyGetCommand(cid, property.size(), property.offset());
    }

    @Override
    public FabricsCommandType fctype() {
        return FabricsCommandType.PROPERTY_GET;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        FabricsCommand.encodeHeader(sqe, FabricsCommandType.PROPERTY_GET, cid);
        NULL_SGL.encode(sqe.dptr());
        MemorySegment s = sqe.segment();
        Wire.u8(s, OFFSET_ATTRIB, size.code());
        Wire.u32(s, OFFSET_OFST, Integer.toUnsignedLong(offset));
    }

    /** ATTRIB (byte 40) as it is, read in place: a controller checks the size bits itself. */
    public static int attribOf(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_ATTRIB);
    }

    /** OFST (bytes 47:44), unsigned, read in place. */
    public static long ofstOf(SubmissionQueueEntry sqe) {
        return Wire.u32(sqe.segment(), OFFSET_OFST);
    }

    public static PropertyGetCommand decode(SubmissionQueueEntry sqe) {
        FabricsCommand.expect(sqe, FabricsCommandType.PROPERTY_GET);
        return new PropertyGetCommand(CommandId.of(sqe.cid()),
                PropertySize.decodeAttrib(attribOf(sqe), "Property Get"), (int) ofstOf(sqe));
    }

    @Override
    public String toString() {
        return String.format("PropertyGet[cid=%d ofst=%02xh (%s) size=%d]", cid.value(), offset,
                ControllerProperty.at(offset).map(Enum::name).orElse("?"), size.bytes());
    }
}
