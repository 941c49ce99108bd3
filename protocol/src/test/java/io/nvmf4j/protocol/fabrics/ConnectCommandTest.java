package io.nvmf4j.protocol.fabrics;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.protocol.sgl.SglDescriptorException;
import org.junit.jupiter.api.Test;

/**
 * Vectors from Linux struct nvmf_connect_command {u8 opcode; u8 resv1; u16 command_id; u8 fctype; u8 resv2[19];
 * union nvme_data_ptr dptr; le16 recfmt; le16 qid; le16 sqsize; u8 cattr; u8 resv3; le32 kato; u8 resv4[12];}
 * filled as nvmf_connect_cmd_prep() and nvme_rdma_map_data() do.
 */
class ConnectCommandTest {

    /**
     * Admin-queue Connect from a Linux RDMA host: sqsize NVME_AQ_DEPTH - 1 = 31, kato NVME_DEFAULT_KATO 5 s * 1000,
     * flags NVME_CMD_SGL_METABUF (40h). On queue 0 Linux never sends in-capsule data, so the 1024-byte Connect data
     * goes by a fast-registered keyed SGL with invalidate (nvme_rdma_map_sg_fr(), identifier 4Fh).
     */
    static final String LINUX_ADMIN_CONNECT =
            "7f 40 0000 01" + zeros(19)
            + "0050341200000000 000400 efcdab00 4f"   // SGL1: addr 12345000h, len 1024, key 00abcdefh
            + "0000 0000 1f00 00 00 88130000" + zeros(12);

    /**
     * I/O-queue Connect (qid 1, queue_size 128 so sqsize 127, no kato) with the Connect data in the capsule, as
     * nvme_rdma_map_sg_inline() describes it once the controller offers in-capsule data (data block, offset 0,
     * length 1024, identifier 01h).
     */
    static final String LINUX_IO_CONNECT =
            "7f 40 0700 01" + zeros(19)
            + "0000000000000000 00040000 000000 01"
            + "0000 0100 7f00 00 00 00000000" + zeros(12);

    @Test
    void connectIsOneSixtyFourByteEntryWithTheLinuxOffsets() {
        assertEquals(40, ConnectCommand.OFFSET_RECFMT);
        assertEquals(42, ConnectCommand.OFFSET_QID);
        assertEquals(44, ConnectCommand.OFFSET_SQSIZE);
        assertEquals(46, ConnectCommand.OFFSET_CATTR);
        assertEquals(48, ConnectCommand.OFFSET_KATO);
        assertEquals(64, Hex.bytes(LINUX_ADMIN_CONNECT).length);
        assertEquals(64, Hex.bytes(LINUX_IO_CONNECT).length);
    }

    @Test
    void adminConnectEncodesToTheBytesLinuxSends() {
        ConnectCommand connect = ConnectCommand.adminQueue(CommandId.of(0),
                new KeyedSglDescriptor(0x12345000L, 1024, 0x00ABCDEF, true), 31, 5000);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.wrap(Hex.segment("ee".repeat(64)));
        connect.encode(sqe);
        assertEquals(Hex.norm(LINUX_ADMIN_CONNECT), Hex.of(sqe.segment()));
        assertEquals(32, connect.queueEntries());
    }

    @Test
    void disableSqFlowSetsCattrBitTwoAsLinuxDoes() {
        // nvmf_connect_io_queue(): cmd.connect.cattr |= NVME_CONNECT_DISABLE_SQFLOW (1 << 2), byte 46
        ConnectCommand connect = ConnectCommand.ioQueue(CommandId.of(0), DataBlockDescriptor.inCapsule(0, 1024),
                QueueId.of(1), 127).withSqFlowControlDisabled();
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        connect.encode(sqe);
        assertEquals(0x04, Wire.u8(sqe.segment(), 46));
        assertTrue(ConnectCommand.decode(sqe).disableSqFlowControl());
        assertEquals(0, Wire.u8(sqe.segment(), 47), "nothing else changes");
    }

    @Test
    void adminConnectDecodesFromTheBytesLinuxSends() {
        ConnectCommand c = ConnectCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(LINUX_ADMIN_CONNECT)));
        assertEquals(QueueId.ADMIN, c.qid());
        assertEquals(31, c.sqsize());
        assertEquals(5000, c.kato());
        assertEquals(0, c.recfmt());
        assertEquals(new KeyedSglDescriptor(0x12345000L, 1024, 0x00ABCDEF, true), c.sgl1());
        assertEquals("Connect[cid=0 qid 0 (admin) sqsize=31 recfmt=0 cattr=00h kato=5000ms "
                + "sgl1=KeyedSGL[addr=0000000012345000h len=1024 key=00abcdefh invalidate]]", c.toString());
        assertEquals(c, FabricsCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(LINUX_ADMIN_CONNECT))));
    }

    @Test
    void ioQueueConnectWithInCapsuleDataMatchesLinux() {
        ConnectCommand connect = ConnectCommand.ioQueue(CommandId.of(7), DataBlockDescriptor.inCapsule(0, 1024),
                QueueId.of(1), 127);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        connect.encode(sqe);
        assertEquals(Hex.norm(LINUX_IO_CONNECT), Hex.of(sqe.segment()));
        assertEquals(connect, ConnectCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(LINUX_IO_CONNECT))));
    }

    @Test
    void disableSqFlowControlIsCattrBit2() {
        ConnectCommand c = new ConnectCommand(CommandId.of(1), DataBlockDescriptor.inCapsule(0, 1024), 0,
                QueueId.ADMIN, 31, ConnectCommand.CATTR_DISABLE_SQ_FLOW_CONTROL, 0);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        c.encode(sqe);
        assertEquals(0x04, sqe.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 46));
        assertTrue(ConnectCommand.decode(sqe).disableSqFlowControl());
    }

    @Test
    void wrongOpcodeOrFctypeIsRefusedNamingTheByte() {
        String identify = "06" + LINUX_ADMIN_CONNECT.substring(2);
        MalformedStructureException opcode = assertThrows(MalformedStructureException.class,
                () -> ConnectCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(identify))));
        assertEquals("SQE byte 0 (opcode): 06h is not the fabrics opcode 7Fh", opcode.getMessage());
        assertEquals(0, opcode.fieldOffset().orElseThrow());

        String fctype02 = LINUX_ADMIN_CONNECT.replaceFirst("7f 40 0000 01", "7f 40 0000 02");
        MalformedStructureException undefined = assertThrows(MalformedStructureException.class,
                () -> FabricsCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(fctype02))));
        assertEquals("fabrics command byte 4 (FCTYPE): 02h is not a defined fabrics command type", undefined.getMessage());
        assertEquals(4, undefined.fieldOffset().orElseThrow());

        String propertyGet = LINUX_ADMIN_CONNECT.replaceFirst("7f 40 0000 01", "7f 40 0000 04");
        assertEquals("fabrics command byte 4 (FCTYPE): 04h (Property Get), expected 01h (Connect)",
                assertThrows(MalformedStructureException.class,
                        () -> ConnectCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(propertyGet)))).getMessage());

        String authSend = LINUX_ADMIN_CONNECT.replaceFirst("7f 40 0000 01", "7f 40 0000 05");
        // Authentication Send is decoded now (DH-HMAC-CHAP): a Connect SQE with FCTYPE 05h reads as one
        assertEquals(FabricsCommandType.AUTH_SEND,
                FabricsCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(authSend))).fctype());
    }

    @Test
    void connectWithAnUndefinedSglTypeGivesTheSglError() {
        String badSgl = LINUX_ADMIN_CONNECT.replace("efcdab00 4f", "efcdab00 6f");
        SglDescriptorException e = assertThrows(SglDescriptorException.class,
                () -> ConnectCommand.decode(SubmissionQueueEntry.wrap(Hex.segment(badSgl))));
        assertEquals(SglDescriptorException.Problem.TYPE, e.problem());
    }

    @Test
    void fieldsOutsideTheirWidthAreRefused() {
        assertEquals("KATO 4294967296 does not fit in 32 bits (0..4294967295)",
                assertThrows(IllegalArgumentException.class, () -> ConnectCommand.adminQueue(CommandId.of(0),
                        DataBlockDescriptor.inCapsule(0, 1024), 31, 1L << 32)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConnectCommand.adminQueue(CommandId.of(0),
                DataBlockDescriptor.inCapsule(0, 1024), 65536, 0));
    }
}
