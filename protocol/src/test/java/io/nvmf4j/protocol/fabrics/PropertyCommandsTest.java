package io.nvmf4j.protocol.fabrics;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import org.junit.jupiter.api.Test;

/**
 * Vectors from Linux struct nvmf_property_get_command {u8 opcode; u8 resv1; u16 command_id; u8 fctype;
 * u8 resv2[35]; u8 attrib; u8 resv3[3]; le32 offset; u8 resv4[16];} and struct nvmf_property_set_command (same,
 * then le64 value; u8 resv4[8]). Bytes 24..39 hold the null keyed SGL of nvme_rdma_set_sg_null() (identifier 40h).
 */
class PropertyCommandsTest {

    static final String NULL_SGL = zeros(15) + "40";
    /** nvmf_reg_read64(ctrl, NVME_REG_CAP): attrib 1 (8 bytes), offset 0. */
    static final String GET_CAP = "7f 40 0100 04" + zeros(19) + NULL_SGL + "01 000000 00000000" + zeros(16);
    /** nvmf_reg_write32(ctrl, NVME_REG_CC, 0x00460001): attrib 0, offset 14h, value. */
    static final String SET_CC = "7f 40 0200 00" + zeros(19) + NULL_SGL + "00 000000 14000000 0100460000000000"
            + zeros(8);
    static final String DISCONNECT = "7f 40 0300 08" + zeros(19) + NULL_SGL + "0000" + zeros(22);

    private static String encode(FabricsCommand c) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.wrap(Hex.segment("ee".repeat(64)));
        c.encode(sqe);
        return Hex.of(sqe.segment());
    }

    private static SubmissionQueueEntry sqe(String hex) {
        return SubmissionQueueEntry.wrap(Hex.segment(hex));
    }

    @Test
    void offsetsAreThoseOfTheLinuxStructs() {
        assertEquals(40, PropertyGetCommand.OFFSET_ATTRIB);
        assertEquals(44, PropertyGetCommand.OFFSET_OFST);
        assertEquals(48, PropertySetCommand.OFFSET_VALUE);
        assertEquals(40, DisconnectCommand.OFFSET_RECFMT);
        assertEquals(64, Hex.bytes(GET_CAP).length);
        assertEquals(64, Hex.bytes(SET_CC).length);
        assertEquals(64, Hex.bytes(DISCONNECT).length);
    }

    @Test
    void propertyGetOfCapIsAnEightByteRead() {
        PropertyGetCommand get = PropertyGetCommand.of(CommandId.of(1), ControllerProperty.CAP);
        assertEquals(Hex.norm(GET_CAP), encode(get));
        assertEquals(get, PropertyGetCommand.decode(sqe(GET_CAP)));
        assertEquals("PropertyGet[cid=1 ofst=00h (CAP) size=8]", get.toString());
    }

    @Test
    void propertySetOfCcEnablesTheController() {
        PropertySetCommand set = PropertySetCommand.of(CommandId.of(2), ControllerProperty.CC, 0x00460001);
        assertEquals(Hex.norm(SET_CC), encode(set));
        PropertySetCommand back = (PropertySetCommand) FabricsCommand.decode(sqe(SET_CC));
        assertEquals(set, back);
        assertEquals(new ControllerConfiguration(true, 0, 0, 0, 0, 6, 4),
                ControllerConfiguration.fromRaw((int) back.value()));
    }

    @Test
    void fourByteSetIgnoresTheUpperHalfOfValue() {
        PropertySetCommand set = new PropertySetCommand(CommandId.of(2), PropertySize.FOUR_BYTES, 0x14,
                0xFFFF_FFFF_0046_0001L);
        assertEquals(Hex.norm(SET_CC), encode(set));
        assertEquals(0x0046_0001L, PropertySetCommand.decode(sqe(SET_CC)).value());
    }

    @Test
    void disconnectCarriesOnlyRecfmt() {
        DisconnectCommand d = DisconnectCommand.of(CommandId.of(3));
        assertEquals(Hex.norm(DISCONNECT), encode(d));
        assertEquals(d, FabricsCommand.decode(sqe(DISCONNECT)));
    }

    @Test
    void reservedAttribValuesAreRefused() {
        String reservedBits = GET_CAP.replace("01 000000 00000000", "09 000000 00000000");
        MalformedStructureException bits = assertThrows(MalformedStructureException.class,
                () -> PropertyGetCommand.decode(sqe(reservedBits)));
        assertEquals("Property Get byte 40 (ATTRIB): reserved bits 7:3 are set (09h)", bits.getMessage());
        assertEquals(40, bits.fieldOffset().orElseThrow());

        String size2 = SET_CC.replace("00 000000 14000000", "02 000000 14000000");
        assertEquals("Property Set byte 40 (ATTRIB): size 2h is reserved (0h = 4 bytes, 1h = 8 bytes)",
                assertThrows(MalformedStructureException.class, () -> PropertySetCommand.decode(sqe(size2))).getMessage());
    }
}
