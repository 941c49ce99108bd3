package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.initiator.fake.ScriptedController;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bytes the host puts on the wire, against layouts written out from Linux ({@code struct nvme_rdma_cm_req},
 * {@code struct nvme_rw_command}, {@code struct nvme_keyed_sgl_desc}, {@code struct nvme_sgl_desc}).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CapsuleLayoutTest {

    private static byte[] hex(String s) {
        s = s.replace(" ", "");
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    @Test
    void cmRequestsAndReadAndInCapsuleWriteCapsulesMatchLinuxLayouts() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        try (ScriptedController target = new ScriptedController(script);
                NvmeController c = NvmeController.connect(ConnectOptions.builder(target.address(), script.subsystem)
                        .host(HostIdentity.generate()).provider("softiwarp").ioQueues(1).queueSize(128)
                        .commandTimeout(Duration.ofSeconds(5)).build())) {
            // nvme_rdma_cm_req: recfmt 0, qid, hrqsize, hsqsize (LE16 each), 24 reserved bytes
            assertArrayEquals(hex("0000 0000 2000 1f00" + "00".repeat(24)), target.cmPrivateData.get(0));
            assertArrayEquals(hex("0000 0100 8000 7f00" + "00".repeat(24)), target.cmPrivateData.get(1));

            Namespace ns = c.firstNamespace();
            // an SLBA beyond the namespace: the bytes still show the layout, the controller answers LBA_RANGE
            org.junit.jupiter.api.Assertions.assertThrows(NvmfStatusException.class,
                    () -> ns.read(0x0102030405L, 8, MemorySegment.ofArray(new byte[4096])));
            byte[] read = target.receivedIo(0x02).get(0).sqe();
            // opcode 02h, flags 40h (PSDT 01b: SGL, NVME_CMD_SGL_METABUF), nsid 1
            assertEquals(0x02, read[0]);
            assertEquals(0x40, read[1]);
            assertArrayEquals(hex("01000000"), slice(read, 4, 4));
            // keyed data block: length 4096 as LE24 at 32, type 4h subtype Fh (invalidate key) at 39, as
            // nvme_rdma_map_sg_fr() writes it (register_always, Linux's default)
            assertArrayEquals(hex("001000"), slice(read, 32, 3));
            assertEquals(0x4F, read[39] & 0xFF);
            // SLBA LE64 at 40, NLB (0's based) at 48
            assertArrayEquals(hex("0504030201000000" + "0700"), slice(read, 40, 10));

            byte[] data = new byte[1024];
            ns.write(7, 2, MemorySegment.ofArray(data));
            byte[] write = target.receivedIo(0x01).get(0).sqe();
            // data block descriptor, offset subtype: address 0 (offset in capsule), length LE32 1024, id 01h
            assertArrayEquals(hex("0000000000000000" + "00040000" + "000000" + "01"), slice(write, 24, 16));
        }
    }

    @Test
    void adminConnectAndEnableMatchLinuxFabricsLayouts() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        try (ScriptedController target = new ScriptedController(script);
                NvmeController c = NvmeController.connect(ConnectOptions.builder(target.address(), script.subsystem)
                        .host(HostIdentity.generate()).provider("softiwarp").ioQueues(1).queueSize(32)
                        .keepAliveTimeout(java.time.Duration.ofSeconds(5)).commandTimeout(Duration.ofSeconds(5))
                        .build())) {
            byte[] connect = target.received.get(0).sqe();
            // struct nvmf_connect_command: opcode 7Fh, flags 40h, fctype 01h at 4, SGL1 keyed (id 4Fh at 39),
            // recfmt 0 at 40, qid 0 at 42, sqsize 31 at 44 (NVME_AQ_DEPTH - 1), cattr 0 at 46, kato 5000 ms at 48
            assertEquals(0x7F, connect[0] & 0xFF);
            assertEquals(0x40, connect[1] & 0xFF);
            assertEquals(0x01, connect[4]);
            assertArrayEquals(hex("000400"), slice(connect, 32, 3), "1024 bytes of connect data");
            assertEquals(0x4F, connect[39] & 0xFF);
            assertArrayEquals(hex("0000 0000 1f00 0000 88130000"), slice(connect, 40, 12));
            // Property Set CC: attrib 0 (4 bytes) at 40, offset 14h at 44, value at 48:
            // EN | IOSQES 6 << 16 | IOCQES 4 << 20 (nvme_enable_ctrl with NVME_CTRL_PAGE_SHIFT 12, CSS NVM)
            byte[] setCc = target.received.stream().filter(r -> r.opcode() == 0x7F && r.sqe()[4] == 0x00)
                    .findFirst().orElseThrow().sqe();
            assertArrayEquals(hex("00000000 14000000 01004600 00000000"), slice(setCc, 40, 16));
            // the I/O queue Connect names the allocated controller and sqsize 31
            byte[] ioConnect = target.received.stream().filter(r -> r.qid() == 1).findFirst().orElseThrow().sqe();
            assertArrayEquals(hex("0000 0100 1f00 0000 00000000"), slice(ioConnect, 40, 12));
            assertEquals(c.controllerId().value(), target.connectData.get(1).cntlid().value());
        }
    }

    private static byte[] slice(byte[] b, int from, int len) {
        byte[] out = new byte[len];
        System.arraycopy(b, from, out, 0, len);
        return out;
    }
}
