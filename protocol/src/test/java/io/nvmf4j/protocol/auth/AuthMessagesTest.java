package io.nvmf4j.protocol.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand;
import io.nvmf4j.protocol.fabrics.AuthenticationSendCommand;
import io.nvmf4j.protocol.fabrics.FabricsCommand;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Byte vectors written from the Linux structure definitions in include/linux/nvme.h (struct
 * nvmf_auth_dhchap_negotiate_data + nvmf_auth_dhchap_protocol_descriptor, _challenge_data, _reply_data,
 * _success1_data, _success2_data, _failure_data, nvmf_auth_send_command, nvmf_auth_receive_command) and from what
 * nvme_auth_set_dhchap_negotiate_data() sends.
 */
class AuthMessagesTest {

    @Test
    void negotiateAsLinuxSendsIt() {
        // auth_type 00, auth_id 00, rsvd, t_id 0x0102, sc_c 0, napd 1 | authid 01, rsvd, halen 3, dhlen 6,
        // idlist[0..2] = 01 02 03, idlist[30..35] = 00..05
        String hex = "00 00 0000 0201 00 01" + "01 00 03 06" + "010203" + Hex.zeros(27) + "000102030405"
                + Hex.zeros(24);
        AuthNegotiate n = AuthNegotiate.of(0x0102, List.of(DhchapHash.SHA256, DhchapHash.SHA384, DhchapHash.SHA512),
                List.of(DhchapDhGroup.values()));
        assertEquals(72, n.encodedSize());
        assertEquals(Hex.norm(hex), Hex.of(n.toBytes()));
        AuthNegotiate d = (AuthNegotiate) AuthMessage.decode(Hex.segment(hex));
        assertEquals(n, d);
        assertEquals(List.of(1, 2, 3), d.hashIds());
    }

    @Test
    void negotiateWithOversizedListsIsMalformed() {
        byte[] b = AuthNegotiate.of(1, List.of(DhchapHash.SHA256), List.of(DhchapDhGroup.NULL)).toBytes();
        b[AuthNegotiate.OFFSET_HALEN] = 31;
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> AuthNegotiate.decode(MemorySegment.ofArray(b)));
        assertEquals(AuthNegotiate.OFFSET_HALEN, e.fieldOffset().orElseThrow());
        assertThrows(MalformedStructureException.class,
                () -> AuthNegotiate.decode(MemorySegment.ofArray(new byte[71])));
    }

    @Test
    void challengeLayout() {
        byte[] c1 = new byte[32];
        c1[0] = (byte) 0xC1;
        byte[] dh = new byte[256];
        dh[255] = 0x77;
        DhchapChallenge c = new DhchapChallenge(0x0102, 1, 1, 0x11223344L, c1, dh);
        String hex = "01 01 0000 0201 20 00 01 01 0001 44332211" + "c1" + Hex.zeros(31) + Hex.zeros(255) + "77";
        assertEquals(Hex.norm(hex), Hex.of(c.toBytes()));
        DhchapChallenge d = (DhchapChallenge) AuthMessage.decode(Hex.segment(hex));
        assertArrayEquals(c1, d.challenge());
        assertArrayEquals(dh, d.dhValue());
        assertEquals(0x11223344L, d.seqnum());
        assertEquals(1, d.dhGroupId());
    }

    @Test
    void challengeLengthsBeyondTheDataAreMalformed() {
        byte[] b = new DhchapChallenge(1, 1, 0, 1, new byte[32], new byte[0]).toBytes();
        b[DhchapChallenge.OFFSET_DHVLEN] = 1;
        assertThrows(MalformedStructureException.class, () -> DhchapChallenge.decode(MemorySegment.ofArray(b)));
    }

    @Test
    void replyLayout() {
        byte[] r = new byte[32];
        r[0] = 0x11;
        byte[] c2 = new byte[32];
        c2[31] = 0x22;
        DhchapReply reply = new DhchapReply(0x0304, r, true, 0x0A0B0C0DL, c2, new byte[0]);
        String hex = "01 02 0000 0403 20 00 01 00 0000 0d0c0b0a" + "11" + Hex.zeros(31) + Hex.zeros(31) + "22";
        assertEquals(Hex.norm(hex), Hex.of(reply.toBytes()));
        DhchapReply d = DhchapReply.decode(Hex.segment(hex));
        assertTrue(d.challengeValid());
        assertArrayEquals(c2, d.challenge());
        assertEquals(0, d.dhValue().length);
        byte[] truncated = java.util.Arrays.copyOf(reply.toBytes(), 16 + 63);
        assertThrows(MalformedStructureException.class, () -> DhchapReply.decode(MemorySegment.ofArray(truncated)));
    }

    @Test
    void success1Success2AndFailureLayouts() {
        byte[] r2 = new byte[48];
        r2[47] = 0x55;
        DhchapSuccess1 s1 = new DhchapSuccess1(7, 48, true, r2);
        assertEquals(Hex.norm("01 03 0000 0700 30 00 01 00000000000000" + Hex.zeros(47) + "55"), Hex.of(s1.toBytes()));
        DhchapSuccess1 unidirectional = new DhchapSuccess1(7, 32, false, new byte[0]);
        assertEquals(Hex.norm("01 03 0000 0700 20 00 00" + Hex.zeros(7) + Hex.zeros(32)),
                Hex.of(unidirectional.toBytes()));
        assertFalse(DhchapSuccess1.decode(Hex.segment("01 03 0000 0700 20 00 00" + Hex.zeros(7))).responseValid());

        assertEquals(Hex.norm("01 04 0000 0700" + Hex.zeros(10)), Hex.of(new DhchapSuccess2(7).toBytes()));
        assertEquals(new DhchapSuccess2(7), AuthMessage.decode(Hex.segment("01 04 0000 0700" + Hex.zeros(10))));

        AuthFailure f1 = AuthFailure.failure1(7, DhchapFailureReason.HASH_UNUSABLE);
        assertEquals(Hex.norm("00 f1 0000 0700 01 04"), Hex.of(f1.toBytes()));
        assertEquals(Hex.norm("00 f0 0000 0700 01 06"),
                Hex.of(AuthFailure.failure2(7, DhchapFailureReason.INCORRECT_PAYLOAD).toBytes()));
        AuthFailure d = assertInstanceOf(AuthFailure.class, AuthMessage.decode(Hex.segment("00 f1 0000 0700 01 05")));
        assertTrue(d.failure1());
        assertEquals(DhchapFailureReason.DHGROUP_UNUSABLE, d.reason());
    }

    @Test
    void tidIsReadFromTheCommonHeaderOfAnyMessage() {
        // struct nvmf_auth_dhchap_negotiate_data: auth_type 00, auth_id 00, rsvd[2], t_id le16 0xbeef, sc_c, napd
        assertEquals(0xBEEF, AuthMessage.peekTid(Hex.segment("00 00 0000 efbe 00 01")));
        // struct nvmf_auth_dhchap_failure_data (AUTH_Failure2): t_id 0x0102, even with an unknown reason code
        assertEquals(0x0102, AuthMessage.peekTid(Hex.segment("00 f0 0000 0201 01 ff")));
        // a message type nvmf4j does not know still carries its T_ID at bytes 5:4
        assertEquals(0x8001, AuthMessage.peekTid(Hex.segment("7e 7e 0000 0180")));
        assertEquals(6, AuthMessage.HEADER_SIZE);
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> AuthMessage.peekTid(Hex.segment("00 00 0000 ef")));
        assertTrue(e.getMessage().contains("authentication message"), e.getMessage());
    }

    @Test
    void unknownTypesAndIdsAreMalformed() {
        assertThrows(MalformedStructureException.class, () -> AuthMessage.decode(Hex.segment("02 00 0000 0000")));
        assertThrows(MalformedStructureException.class, () -> AuthMessage.decode(Hex.segment("01 09 0000 0000")));
        assertThrows(MalformedStructureException.class, () -> AuthMessage.decode(Hex.segment("00 05 0000 0000")));
        assertThrows(MalformedStructureException.class, () -> AuthMessage.decode(Hex.segment("01")));
    }

    @Test
    void authenticationSendAndReceiveSqes() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AuthenticationSendCommand send = AuthenticationSendCommand.dhchap(CommandId.of(0x1234),
                DataBlockDescriptor.inCapsule(0, 72), 72);
        send.encode(sqe);
        String sqeHex = Hex.of(sqe.segment());
        // opcode 7F, PSDT 01b (byte 1 = 40h), CID 3412, FCTYPE 05
        assertEquals("7f40341205", sqeHex.substring(0, 10));
        // bytes 40..47: resv3 00, spsp0 01, spsp1 01, secp e9, tl 72 (le32)
        assertEquals("000101e948000000", sqeHex.substring(80, 96));
        assertEquals(send, FabricsCommand.decode(sqe));

        AuthenticationReceiveCommand recv = AuthenticationReceiveCommand.dhchap(CommandId.of(1),
                DataBlockDescriptor.inCapsule(0, 4096), 4096);
        recv.encode(sqe);
        sqeHex = Hex.of(sqe.segment());
        assertEquals("06", sqeHex.substring(8, 10));
        assertEquals("000101e900100000", sqeHex.substring(80, 96));
        assertEquals(recv, FabricsCommand.decode(sqe));
    }
}
