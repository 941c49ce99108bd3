package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * Property Set (NVMe Base 2.0, "Property Set command"; Linux {@code struct nvmf_property_set_command}): writes
 * a controller
 * property, typically CC to enable or shut down the controller.
 *
 * <pre>
 *  0 opcode 7Fh | 2..3 CID | 4 FCTYPE 00h | 24..39 SGL1 (no data: null keyed)
 *  40 ATTRIB (bits 2:0 size) | 41..43 reserved | 44..47 OFST | 48..55 VALUE | 56..63 reserved
 * </pre>
 *
 * @param cid    command identifier
 * @param size   4 or 8 bytes; for 4 bytes only the low 32 bits of {@code value} are meaningful
 * @param offset the property's offset (OFST)
 * @param value  the value to write
 */
public record PropertySetCommand(CommandId cid, PropertySize size, int offset, long value) implements FabricsCommand {

    public PropertySetCommand {
        java.util.Objects.requireNonNull(cid, "cid");
        java.util.Objects.requireNonNull(size, "size");
    }

    public static final int OFFSET_ATTRIB = PropertySize.OFFSET_ATTRIB;
    public static final int OFFSET_OFST = 44;
    public static final int OFFSET_VALUE = 48;

    public static PropertySetCommand of(CommandId cid, ControllerProperty property, long value) {
        return new PropertySetCommand(cid, property.size(), property.offset(), value);
    }

    @Override
    public FabricsCommandType fctype() {
        return FabricsCommandType.PROPERTY_SET;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        FabricsCommand.encodeHeader(sqe, FabricsCommandType.PROPERTY_SET, cid);
        NULL_SGL.encode(sqe.dptr());
        MemorySegment s = sqe.segment();
        Wire.u8(s, OFFSET_ATTRIB, size.code());
        Wire.u32(s, OFFSET_OFST, Integer.toUnsignedLong(offset));
        Wire.u64(s, OFFSET_VALUE, size == PropertySize.FOUR_BYTES ? value & 0xFFFF_FFFFL : value);
    }

    /** ATTRIB (byte 40) as it is, read in place: a controller checks the size bits itself. */
    public static int attribOf(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_ATTRIB);
    }

    /** OFST (bytes 47:44), unsigned, read in place. */
    public static long ofstOf(SubmissionQueueEntry sqe) {
        return Wire.u32(sqe.segment(), OFFSET_OFST);
    }

    /** VALUE (bytes 55:48), all 8 bytes as sent, read in place (a 4-byte property uses the low 4). */
    public static long propertyValueOf(SubmissionQueueEntry sqe) {
        return Wire.u64(sqe.segment(), OFFSET_VALUE);
    }

    public static PropertySetCommand decode(SubmissionQueueEntry sqe) {
        FabricsCommand.expect(sqe, FabricsCommandType.PROPERTY_SET);
        PropertySize size = PropertySize.decodeAttrib(attribOf(sqe), "Property Set");
        long value = propertyValueOf(sqe);
        return new PropertySetCommand(CommandId.of(sqe.cid()), size, (int) ofstOf(sqe),
                size == PropertySize.FOUR_BYTES ? value & 0xFFFF_FFFFL : value);
    }

    @Override
    public String toString() {
        return String.format("PropertySet[cid=%d ofst=%02xh (%s) size=%d value=%xh]", cid.value(), offset,
                ControllerProperty.at(offset).map(Enum::name).orElse("?"), size.bytes(), value);
    }
}
