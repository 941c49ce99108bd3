package io.nvmf4j.protocol.fabrics;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The in-place field reads a controller uses before (or instead of) decoding a fabrics command, on the Linux byte
 * vectors of the decoder tests and on fields with every byte distinct (so a wrong offset or byte order shows):
 * Linux {@code struct nvmf_connect_command}, {@code struct nvmf_connect_data}, {@code struct
 * nvmf_property_get_command} / {@code _set_command}, {@code struct nvmf_auth_send_command} /
 * {@code _receive_command}.
 */
class FabricsFieldReadsTest {

    private static SubmissionQueueEntry sqe(String hex) {
        return SubmissionQueueEntry.wrap(Hex.segment(hex));
    }

    @Test
    void connectFieldsOfTheLinuxAdminAndIoConnect() {
        SubmissionQueueEntry admin = sqe(ConnectCommandTest.LINUX_ADMIN_CONNECT);
        assertEquals(0x01, FabricsCommand.fctypeOf(admin));
        assertEquals(0, ConnectCommand.recfmtOf(admin));
        assertEquals(0, ConnectCommand.qidOf(admin));
        assertEquals(31, ConnectCommand.sqsizeOf(admin));
        assertEquals(0, ConnectCommand.cattrOf(admin));
        assertEquals(5000, ConnectCommand.katoOf(admin));
        SubmissionQueueEntry io = sqe(ConnectCommandTest.LINUX_IO_CONNECT);
        assertEquals(1, ConnectCommand.qidOf(io));
        assertEquals(127, ConnectCommand.sqsizeOf(io));
        assertEquals(0, ConnectCommand.katoOf(io));
    }

    @Test
    void connectFieldsAreLittleEndianAtBytes40To51() {
        // recfmt 0201h, qid 0403h, sqsize 0605h, cattr 07h, resv, kato 0c0b0a09h (unsigned: top bit set below)
        SubmissionQueueEntry s = sqe("7f 40 0000 01" + zeros(19) + zeros(16)
                + "0102 0304 0506 07 ff 090a0b8c" + zeros(12));
        assertEquals(0x0201, ConnectCommand.recfmtOf(s));
        assertEquals(0x0403, ConnectCommand.qidOf(s));
        assertEquals(0x0605, ConnectCommand.sqsizeOf(s));
        assertEquals(0x07, ConnectCommand.cattrOf(s));
        assertEquals(0x8c0b0a09L, ConnectCommand.katoOf(s));
        assertEquals(ConnectCommand.decode(s).kato(), ConnectCommand.katoOf(s));
    }

    @Test
    void connectDataCntlidAndEmptyHostNqn() {
        MemorySegment dynamic = Hex.segment(zeros(16) + "ffff" + zeros(1024 - 18));
        assertEquals(0xFFFF, ConnectData.cntlidOf(dynamic));
        assertTrue(ConnectData.hostNqnEmpty(dynamic));
        MemorySegment named = Hex.segment(zeros(16) + "3412" + zeros(512 - 18) + "6e" + zeros(511));
        assertEquals(0x1234, ConnectData.cntlidOf(named));
        assertFalse(ConnectData.hostNqnEmpty(named));
    }

    @Test
    void propertyFieldsOfTheLinuxGetCapAndSetCc() {
        SubmissionQueueEntry get = sqe(PropertyCommandsTest.GET_CAP);
        assertEquals(0x04, FabricsCommand.fctypeOf(get));
        assertEquals(1, PropertyGetCommand.attribOf(get));
        assertEquals(0, PropertyGetCommand.ofstOf(get));
        SubmissionQueueEntry set = sqe(PropertyCommandsTest.SET_CC);
        assertEquals(0x00, FabricsCommand.fctypeOf(set));
        assertEquals(0, PropertySetCommand.attribOf(set));
        assertEquals(0x14, PropertySetCommand.ofstOf(set));
        assertEquals(0x00460001L, PropertySetCommand.propertyValueOf(set));
    }

    @Test
    void propertyOffsetIsUnsignedAndValueAllEightBytes() {
        SubmissionQueueEntry s = sqe("7f 40 0200 00" + zeros(19) + PropertyCommandsTest.NULL_SGL
                + "07 000000 010203f4 1112131415161718" + zeros(8));
        assertEquals(7, PropertySetCommand.attribOf(s));
        assertEquals(0xf4030201L, PropertySetCommand.ofstOf(s));
        assertEquals(0x1817161514131211L, PropertySetCommand.propertyValueOf(s));
        assertEquals(0xf4030201L, PropertyGetCommand.ofstOf(s));
    }

    @Test
    void authenticationFieldsAtBytes41To47() {
        // Linux nvme_auth_submit(): secp NVME_AUTH_DHCHAP_PROTOCOL_IDENTIFIER E9h, spsp0 01h, spsp1 01h, tl/al
        String tail = "00 01 01 e9 28000000" + zeros(16);
        SubmissionQueueEntry send = sqe("7f 40 0900 05" + zeros(19) + PropertyCommandsTest.NULL_SGL + tail);
        assertEquals(0x05, FabricsCommand.fctypeOf(send));
        assertEquals(0xE9, SecurityProtocolFields.secpOf(send));
        assertEquals(0x01, SecurityProtocolFields.spsp0Of(send));
        assertEquals(0x01, SecurityProtocolFields.spsp1Of(send));
        assertEquals(40, AuthenticationSendCommand.tlOf(send));
        SubmissionQueueEntry distinct = sqe("7f 40 0a00 06" + zeros(19) + PropertyCommandsTest.NULL_SGL
                + "00 a1 a2 a3 010203f4" + zeros(16));
        assertEquals(0x06, FabricsCommand.fctypeOf(distinct));
        assertEquals(0xA3, SecurityProtocolFields.secpOf(distinct));
        assertEquals(0xA1, SecurityProtocolFields.spsp0Of(distinct));
        assertEquals(0xA2, SecurityProtocolFields.spsp1Of(distinct));
        assertEquals(0xf4030201L, AuthenticationReceiveCommand.alOf(distinct));
        assertEquals(0xf4030201L, AuthenticationSendCommand.tlOf(distinct));
    }
}
