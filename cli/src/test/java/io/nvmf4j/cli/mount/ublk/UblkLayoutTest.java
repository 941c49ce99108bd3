package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ublk structures and command numbers against gcc's view of the system's {@code <linux/ublk_cmd.h>}: a C program
 * (below) prints {@code sizeof}/{@code offsetof} of every member nvmf4j writes or reads, the constants, and the
 * ioctl-encoded command numbers as {@code _IOR}/{@code _IOWR} build them (Debian 12's header predates the
 * {@code UBLK_U_*} macros, so the program builds them as the 6.3+ header does). The Java writers then fill each
 * structure with distinct values, which must sit at the offsets gcc gives. Needs gcc and the kernel's UAPI headers
 * (linux-libc-dev, which gcc's libc6-dev pulls in; .ci/run installs gcc): without them the test fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UblkLayoutTest {

    private static final String PROGRAM = """
            #include <errno.h>
            #include <linux/ublk_cmd.h>
            #include <linux/ioctl.h>
            #include <stdio.h>
            #include <stddef.h>
            #define S(t) printf("sizeof %s %zu\\n", #t, sizeof(struct t))
            #define O(t,f) printf("offsetof %s.%s %zu\\n", #t, #f, offsetof(struct t, f))
            #define K(c) printf("const %s %lld\\n", #c, (long long)(c))
            int main(void) {
              S(ublksrv_ctrl_cmd); O(ublksrv_ctrl_cmd,dev_id); O(ublksrv_ctrl_cmd,queue_id);
              O(ublksrv_ctrl_cmd,len); O(ublksrv_ctrl_cmd,addr); O(ublksrv_ctrl_cmd,data);
              S(ublksrv_ctrl_dev_info); O(ublksrv_ctrl_dev_info,nr_hw_queues); O(ublksrv_ctrl_dev_info,queue_depth);
              O(ublksrv_ctrl_dev_info,state); O(ublksrv_ctrl_dev_info,max_io_buf_bytes);
              O(ublksrv_ctrl_dev_info,dev_id); O(ublksrv_ctrl_dev_info,ublksrv_pid); O(ublksrv_ctrl_dev_info,flags);
              O(ublksrv_ctrl_dev_info,ublksrv_flags);
              S(ublksrv_io_desc); O(ublksrv_io_desc,op_flags); O(ublksrv_io_desc,nr_sectors);
              O(ublksrv_io_desc,start_sector); O(ublksrv_io_desc,addr);
              S(ublksrv_io_cmd); O(ublksrv_io_cmd,q_id); O(ublksrv_io_cmd,tag); O(ublksrv_io_cmd,result);
              O(ublksrv_io_cmd,addr);
              O(ublk_params,len); O(ublk_params,types); O(ublk_params,basic); O(ublk_params,discard);
              S(ublk_param_basic); O(ublk_param_basic,attrs); O(ublk_param_basic,logical_bs_shift);
              O(ublk_param_basic,physical_bs_shift); O(ublk_param_basic,io_opt_shift);
              O(ublk_param_basic,io_min_shift); O(ublk_param_basic,max_sectors); O(ublk_param_basic,chunk_sectors);
              O(ublk_param_basic,dev_sectors); O(ublk_param_basic,virt_boundary_mask);
              S(ublk_param_discard); O(ublk_param_discard,discard_alignment);
              O(ublk_param_discard,discard_granularity); O(ublk_param_discard,max_discard_sectors);
              O(ublk_param_discard,max_write_zeroes_sectors); O(ublk_param_discard,max_discard_segments);
              K(UBLK_CMD_GET_QUEUE_AFFINITY); K(UBLK_CMD_GET_DEV_INFO); K(UBLK_CMD_ADD_DEV); K(UBLK_CMD_DEL_DEV);
              K(UBLK_CMD_START_DEV); K(UBLK_CMD_STOP_DEV); K(UBLK_CMD_SET_PARAMS); K(UBLK_CMD_GET_PARAMS);
              K(UBLK_CMD_START_USER_RECOVERY); K(UBLK_CMD_END_USER_RECOVERY);
              K(UBLK_IO_FETCH_REQ); K(UBLK_IO_COMMIT_AND_FETCH_REQ);
              K(UBLK_IO_RES_OK); K(UBLK_IO_RES_ABORT); K(UBLK_MAX_QUEUE_DEPTH); K(UBLKSRV_CMD_BUF_OFFSET);
              K(UBLK_F_SUPPORT_ZERO_COPY); K(UBLK_F_URING_CMD_COMP_IN_TASK); K(UBLK_F_NEED_GET_DATA);
              K(UBLK_F_USER_RECOVERY); K(UBLK_F_USER_RECOVERY_REISSUE);
              K(UBLK_S_DEV_DEAD); K(UBLK_S_DEV_LIVE); K(UBLK_S_DEV_QUIESCED);
              K(UBLK_IO_OP_READ); K(UBLK_IO_OP_WRITE); K(UBLK_IO_OP_FLUSH); K(UBLK_IO_OP_DISCARD);
              K(UBLK_IO_OP_WRITE_SAME); K(UBLK_IO_OP_WRITE_ZEROES);
              K(UBLK_IO_F_FAILFAST_DEV); K(UBLK_IO_F_FAILFAST_TRANSPORT); K(UBLK_IO_F_FAILFAST_DRIVER);
              K(UBLK_IO_F_META); K(UBLK_IO_F_FUA); K(UBLK_IO_F_NOUNMAP); K(UBLK_IO_F_SWAP);
              K(UBLK_ATTR_READ_ONLY); K(UBLK_ATTR_ROTATIONAL); K(UBLK_ATTR_VOLATILE_CACHE); K(UBLK_ATTR_FUA);
              K(UBLK_PARAM_TYPE_BASIC); K(UBLK_PARAM_TYPE_DISCARD);
              /* the 6.3+ header's UBLK_U_* definitions, built from the structures of this one */
              printf("const U_CMD_GET_DEV_INFO %u\\n", (unsigned)_IOR('u', UBLK_CMD_GET_DEV_INFO, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_GET_QUEUE_AFFINITY %u\\n", (unsigned)_IOR('u', UBLK_CMD_GET_QUEUE_AFFINITY, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_ADD_DEV %u\\n", (unsigned)_IOWR('u', UBLK_CMD_ADD_DEV, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_DEL_DEV %u\\n", (unsigned)_IOWR('u', UBLK_CMD_DEL_DEV, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_START_DEV %u\\n", (unsigned)_IOWR('u', UBLK_CMD_START_DEV, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_STOP_DEV %u\\n", (unsigned)_IOWR('u', UBLK_CMD_STOP_DEV, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_SET_PARAMS %u\\n", (unsigned)_IOWR('u', UBLK_CMD_SET_PARAMS, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_GET_PARAMS %u\\n", (unsigned)_IOR('u', UBLK_CMD_GET_PARAMS, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_START_USER_RECOVERY %u\\n", (unsigned)_IOWR('u', UBLK_CMD_START_USER_RECOVERY, struct ublksrv_ctrl_cmd));
              printf("const U_CMD_END_USER_RECOVERY %u\\n", (unsigned)_IOWR('u', UBLK_CMD_END_USER_RECOVERY, struct ublksrv_ctrl_cmd));
              printf("const U_IO_FETCH_REQ %u\\n", (unsigned)_IOWR('u', UBLK_IO_FETCH_REQ, struct ublksrv_io_cmd));
              printf("const U_IO_COMMIT_AND_FETCH_REQ %u\\n", (unsigned)_IOWR('u', UBLK_IO_COMMIT_AND_FETCH_REQ, struct ublksrv_io_cmd));
            #ifdef UBLK_U_CMD_ADD_DEV
              printf("const UBLK_U_CMD_ADD_DEV %u\\n", (unsigned)UBLK_U_CMD_ADD_DEV);
              printf("const UBLK_U_IO_FETCH_REQ %u\\n", (unsigned)UBLK_U_IO_FETCH_REQ);
            #endif
              return 0;
            }
            """;

    static final Map<String, Long> GCC = new HashMap<>();

    @BeforeAll
    static void compileAndRun(@TempDir Path dir) throws IOException, InterruptedException {
        Path c = Files.writeString(dir.resolve("ublk-layout.c"), PROGRAM);
        Path exe = dir.resolve("ublk-layout");
        run(List.of("gcc", "-o", exe.toString(), c.toString()));
        for (String line : run(List.of(exe.toString())).split("\n")) {
            String[] f = line.split(" ");
            GCC.put(f[0] + " " + f[1], Long.parseLong(f[2]));
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "gcc hung");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }

    private static long c(String key) {
        Long v = GCC.get(key);
        assertTrue(v != null, "gcc printed no '" + key + "'");
        return v;
    }

    private static long off(String structAndField) {
        return c("offsetof " + structAndField);
    }

    @Test
    void aControlCommandPutsEveryFieldWhereTheDriverReadsIt() {
        assertEquals(c("sizeof ublksrv_ctrl_cmd"), ControlCommand.SIZE);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cmd = arena.allocate(ControlCommand.SIZE, 8);
            cmd.fill((byte) 0x5a);
            MemorySegment buffer = arena.allocate(DeviceInfo.SIZE, 8);
            ControlCommand.write(cmd, 7, 3, buffer, 0x1122334455667788L);
            assertEquals(7, cmd.get(JAVA_INT, off("ublksrv_ctrl_cmd.dev_id")));
            assertEquals(3, cmd.get(JAVA_SHORT, off("ublksrv_ctrl_cmd.queue_id")));
            assertEquals(DeviceInfo.SIZE, cmd.get(JAVA_SHORT, off("ublksrv_ctrl_cmd.len")));
            assertEquals(buffer.address(), cmd.get(JAVA_LONG, off("ublksrv_ctrl_cmd.addr")));
            assertEquals(0x1122334455667788L, cmd.get(JAVA_LONG, off("ublksrv_ctrl_cmd.data")));
            // what follows data[0] (data[1] here, dev_path_len/pad/reserved since 6.5) is zero, not the fill
            assertEquals(0L, cmd.get(JAVA_LONG, off("ublksrv_ctrl_cmd.data") + 8));
        }
    }

    @Test
    void deviceInfoRoundTripsThroughTheKernelsOffsets() {
        assertEquals(c("sizeof ublksrv_ctrl_dev_info"), DeviceInfo.SIZE);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(DeviceInfo.SIZE, 8);
            s.fill((byte) 0x5a);
            DeviceInfo info = new DeviceInfo(4, 128, DeviceInfo.STATE_LIVE, 1 << 20, 9, 4242,
                    DeviceInfo.F_USER_RECOVERY | DeviceInfo.F_CMD_IOCTL_ENCODE, 0x6e76_6d66_0000_0003L);
            info.write(s);
            assertEquals(4, s.get(JAVA_SHORT, off("ublksrv_ctrl_dev_info.nr_hw_queues")));
            assertEquals(128, s.get(JAVA_SHORT, off("ublksrv_ctrl_dev_info.queue_depth")));
            assertEquals(DeviceInfo.STATE_LIVE, s.get(JAVA_SHORT, off("ublksrv_ctrl_dev_info.state")));
            assertEquals(1 << 20, s.get(JAVA_INT, off("ublksrv_ctrl_dev_info.max_io_buf_bytes")));
            assertEquals(9, s.get(JAVA_INT, off("ublksrv_ctrl_dev_info.dev_id")));
            assertEquals(4242, s.get(JAVA_INT, off("ublksrv_ctrl_dev_info.ublksrv_pid")));
            assertEquals(info.flags(), s.get(JAVA_LONG, off("ublksrv_ctrl_dev_info.flags")));
            assertEquals(info.serverFlags(), s.get(JAVA_LONG, off("ublksrv_ctrl_dev_info.ublksrv_flags")));
            assertEquals(info, DeviceInfo.read(s));
        }
    }

    @Test
    void anIoCommandAndAnIoDescriptorMatchTheDriversStructures() {
        assertEquals(c("sizeof ublksrv_io_cmd"), IoCommand.SIZE);
        assertEquals(c("sizeof ublksrv_io_desc"), IoDescriptor.SIZE);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cmd = arena.allocate(IoCommand.SIZE, 8);
            IoCommand.write(cmd, 2, 65535, -5, 0xABCDEF0123L);
            assertEquals(2, cmd.get(JAVA_SHORT, off("ublksrv_io_cmd.q_id")));
            assertEquals(-1, cmd.get(JAVA_SHORT, off("ublksrv_io_cmd.tag")), "tag 65535 as a __u16");
            assertEquals(-5, cmd.get(JAVA_INT, off("ublksrv_io_cmd.result")));
            assertEquals(0xABCDEF0123L, cmd.get(JAVA_LONG, off("ublksrv_io_cmd.addr")));

            // a queue's descriptor array as the driver fills it: tag 1 is a FUA write of 8 sectors at 2048
            MemorySegment descriptors = arena.allocate(3L * IoDescriptor.SIZE, 8);
            long at = IoDescriptor.SIZE;
            descriptors.set(JAVA_INT, at + off("ublksrv_io_desc.op_flags"),
                    (int) (c("const UBLK_IO_OP_WRITE") | c("const UBLK_IO_F_FUA")));
            descriptors.set(JAVA_INT, at + off("ublksrv_io_desc.nr_sectors"), 8);
            descriptors.set(JAVA_LONG, at + off("ublksrv_io_desc.start_sector"), 2048);
            descriptors.set(JAVA_LONG, at + off("ublksrv_io_desc.addr"), 0x7000L);
            MemorySegment d = IoDescriptor.of(descriptors, 1);
            assertEquals(IoDescriptor.OP_WRITE, IoDescriptor.op(d));
            assertEquals(IoDescriptor.F_FUA, IoDescriptor.flags(d));
            assertEquals(8, IoDescriptor.sectors(d));
            assertEquals(2048, IoDescriptor.startSector(d));
            assertEquals(0x7000L, IoDescriptor.address(d));
        }
    }

    @Test
    void deviceParamsPutBasicAndDiscardWhereSetParamsCopiesThem() {
        assertEquals(c("offsetof ublk_params.basic"), DeviceParams.BASIC);
        assertEquals(c("offsetof ublk_params.discard"), DeviceParams.DISCARD);
        assertTrue(DeviceParams.SIZE >= DeviceParams.DISCARD + c("sizeof ublk_param_discard"));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(DeviceParams.SIZE, 8);
            s.fill((byte) 0x5a);
            DeviceParams params = new DeviceParams(DeviceParams.ATTR_VOLATILE_CACHE | DeviceParams.ATTR_FUA, 12, 13,
                    14, 9, 256, 1L << 33, new DeviceParams.Discard(4096, 8192, 1 << 20, 1 << 16, 256));
            params.write(s);
            assertEquals(params, DeviceParams.read(s), "what GET_PARAMS gives back reads as what was set");
            assertEquals(DeviceParams.SIZE, s.get(JAVA_INT, off("ublk_params.len")));
            assertEquals(c("const UBLK_PARAM_TYPE_BASIC") | c("const UBLK_PARAM_TYPE_DISCARD"),
                    s.get(JAVA_INT, off("ublk_params.types")));
            long b = off("ublk_params.basic");
            assertEquals(c("const UBLK_ATTR_VOLATILE_CACHE") | c("const UBLK_ATTR_FUA"),
                    s.get(JAVA_INT, b + off("ublk_param_basic.attrs")));
            assertEquals(12, s.get(JAVA_BYTE, b + off("ublk_param_basic.logical_bs_shift")));
            assertEquals(13, s.get(JAVA_BYTE, b + off("ublk_param_basic.physical_bs_shift")));
            assertEquals(14, s.get(JAVA_BYTE, b + off("ublk_param_basic.io_opt_shift")));
            assertEquals(9, s.get(JAVA_BYTE, b + off("ublk_param_basic.io_min_shift")));
            assertEquals(256, s.get(JAVA_INT, b + off("ublk_param_basic.max_sectors")));
            assertEquals(0, s.get(JAVA_INT, b + off("ublk_param_basic.chunk_sectors")));
            assertEquals(1L << 33, s.get(JAVA_LONG, b + off("ublk_param_basic.dev_sectors")));
            assertEquals(0L, s.get(JAVA_LONG, b + off("ublk_param_basic.virt_boundary_mask")));
            long d = off("ublk_params.discard");
            assertEquals(4096, s.get(JAVA_INT, d + off("ublk_param_discard.discard_alignment")));
            assertEquals(8192, s.get(JAVA_INT, d + off("ublk_param_discard.discard_granularity")));
            assertEquals(1 << 20, s.get(JAVA_INT, d + off("ublk_param_discard.max_discard_sectors")));
            assertEquals(1 << 16, s.get(JAVA_INT, d + off("ublk_param_discard.max_write_zeroes_sectors")));
            assertEquals(256, s.get(JAVA_SHORT, d + off("ublk_param_discard.max_discard_segments")));
        }
    }

    @Test
    void commandNumbersAreTheHeadersBothLegacyAndIoctlEncoded() {
        assertEquals(c("const UBLK_CMD_GET_QUEUE_AFFINITY"), UblkCommands.CMD_GET_QUEUE_AFFINITY);
        assertEquals(c("const UBLK_CMD_GET_DEV_INFO"), UblkCommands.CMD_GET_DEV_INFO);
        assertEquals(c("const UBLK_CMD_ADD_DEV"), UblkCommands.CMD_ADD_DEV);
        assertEquals(c("const UBLK_CMD_DEL_DEV"), UblkCommands.CMD_DEL_DEV);
        assertEquals(c("const UBLK_CMD_START_DEV"), UblkCommands.CMD_START_DEV);
        assertEquals(c("const UBLK_CMD_STOP_DEV"), UblkCommands.CMD_STOP_DEV);
        assertEquals(c("const UBLK_CMD_SET_PARAMS"), UblkCommands.CMD_SET_PARAMS);
        assertEquals(c("const UBLK_CMD_GET_PARAMS"), UblkCommands.CMD_GET_PARAMS);
        assertEquals(c("const UBLK_CMD_START_USER_RECOVERY"), UblkCommands.CMD_START_USER_RECOVERY);
        assertEquals(c("const UBLK_CMD_END_USER_RECOVERY"), UblkCommands.CMD_END_USER_RECOVERY);
        assertEquals(c("const UBLK_IO_FETCH_REQ"), UblkCommands.IO_FETCH_REQ);
        assertEquals(c("const UBLK_IO_COMMIT_AND_FETCH_REQ"), UblkCommands.IO_COMMIT_AND_FETCH_REQ);
        assertEquals(c("const UBLK_IO_RES_OK"), UblkCommands.IO_RES_OK);
        assertEquals(c("const UBLK_IO_RES_ABORT"), UblkCommands.IO_RES_ABORT);

        assertEquals(c("const U_CMD_GET_QUEUE_AFFINITY"), Integer.toUnsignedLong(UblkCommands.U_CMD_GET_QUEUE_AFFINITY));
        assertEquals(c("const U_CMD_GET_DEV_INFO"), Integer.toUnsignedLong(UblkCommands.U_CMD_GET_DEV_INFO));
        assertEquals(c("const U_CMD_ADD_DEV"), Integer.toUnsignedLong(UblkCommands.U_CMD_ADD_DEV));
        assertEquals(c("const U_CMD_DEL_DEV"), Integer.toUnsignedLong(UblkCommands.U_CMD_DEL_DEV));
        assertEquals(c("const U_CMD_START_DEV"), Integer.toUnsignedLong(UblkCommands.U_CMD_START_DEV));
        assertEquals(c("const U_CMD_STOP_DEV"), Integer.toUnsignedLong(UblkCommands.U_CMD_STOP_DEV));
        assertEquals(c("const U_CMD_SET_PARAMS"), Integer.toUnsignedLong(UblkCommands.U_CMD_SET_PARAMS));
        assertEquals(c("const U_CMD_GET_PARAMS"), Integer.toUnsignedLong(UblkCommands.U_CMD_GET_PARAMS));
        assertEquals(c("const U_CMD_START_USER_RECOVERY"),
                Integer.toUnsignedLong(UblkCommands.U_CMD_START_USER_RECOVERY));
        assertEquals(c("const U_CMD_END_USER_RECOVERY"), Integer.toUnsignedLong(UblkCommands.U_CMD_END_USER_RECOVERY));
        assertEquals(c("const U_IO_FETCH_REQ"), Integer.toUnsignedLong(UblkCommands.U_IO_FETCH_REQ));
        assertEquals(c("const U_IO_COMMIT_AND_FETCH_REQ"),
                Integer.toUnsignedLong(UblkCommands.U_IO_COMMIT_AND_FETCH_REQ));
        if (GCC.containsKey("const UBLK_U_CMD_ADD_DEV")) { // a 6.3+ header defines them itself
            assertEquals(c("const UBLK_U_CMD_ADD_DEV"), Integer.toUnsignedLong(UblkCommands.U_CMD_ADD_DEV));
            assertEquals(c("const UBLK_U_IO_FETCH_REQ"), Integer.toUnsignedLong(UblkCommands.U_IO_FETCH_REQ));
        }
        assertEquals(UblkCommands.CMD_ADD_DEV, UblkCommands.number(UblkCommands.U_CMD_ADD_DEV));
        // the values known from the kernel's own definition, as ublksrv and SPDK use them
        assertEquals(0xC0207504, UblkCommands.U_CMD_ADD_DEV);
        assertEquals(0xC0107520, UblkCommands.U_IO_FETCH_REQ);
    }

    @Test
    void flagsStatesOpsAndTheDescriptorMapMatchTheHeader() {
        assertEquals(c("const UBLK_F_SUPPORT_ZERO_COPY"), DeviceInfo.F_SUPPORT_ZERO_COPY);
        assertEquals(c("const UBLK_F_URING_CMD_COMP_IN_TASK"), DeviceInfo.F_URING_CMD_COMP_IN_TASK);
        assertEquals(c("const UBLK_F_NEED_GET_DATA"), DeviceInfo.F_NEED_GET_DATA);
        assertEquals(c("const UBLK_F_USER_RECOVERY"), DeviceInfo.F_USER_RECOVERY);
        assertEquals(c("const UBLK_F_USER_RECOVERY_REISSUE"), DeviceInfo.F_USER_RECOVERY_REISSUE);
        assertEquals(c("const UBLK_S_DEV_DEAD"), DeviceInfo.STATE_DEAD);
        assertEquals(c("const UBLK_S_DEV_LIVE"), DeviceInfo.STATE_LIVE);
        assertEquals(c("const UBLK_S_DEV_QUIESCED"), DeviceInfo.STATE_QUIESCED);
        assertEquals(c("const UBLK_MAX_QUEUE_DEPTH"), DeviceInfo.MAX_QUEUE_DEPTH);
        assertEquals(c("const UBLK_IO_OP_READ"), IoDescriptor.OP_READ);
        assertEquals(c("const UBLK_IO_OP_WRITE"), IoDescriptor.OP_WRITE);
        assertEquals(c("const UBLK_IO_OP_FLUSH"), IoDescriptor.OP_FLUSH);
        assertEquals(c("const UBLK_IO_OP_DISCARD"), IoDescriptor.OP_DISCARD);
        assertEquals(c("const UBLK_IO_OP_WRITE_SAME"), IoDescriptor.OP_WRITE_SAME);
        assertEquals(c("const UBLK_IO_OP_WRITE_ZEROES"), IoDescriptor.OP_WRITE_ZEROES);
        assertEquals(c("const UBLK_IO_F_FAILFAST_DEV"), IoDescriptor.F_FAILFAST_DEV);
        assertEquals(c("const UBLK_IO_F_FAILFAST_TRANSPORT"), IoDescriptor.F_FAILFAST_TRANSPORT);
        assertEquals(c("const UBLK_IO_F_FAILFAST_DRIVER"), IoDescriptor.F_FAILFAST_DRIVER);
        assertEquals(c("const UBLK_IO_F_META"), IoDescriptor.F_META);
        assertEquals(c("const UBLK_IO_F_FUA"), IoDescriptor.F_FUA);
        assertEquals(c("const UBLK_IO_F_NOUNMAP"), IoDescriptor.F_NOUNMAP);
        assertEquals(c("const UBLK_IO_F_SWAP"), IoDescriptor.F_SWAP);
        assertEquals(c("const UBLK_ATTR_READ_ONLY"), DeviceParams.ATTR_READ_ONLY);
        assertEquals(c("const UBLK_ATTR_ROTATIONAL"), DeviceParams.ATTR_ROTATIONAL);
        assertEquals(c("const UBLKSRV_CMD_BUF_OFFSET"), IoDescriptor.CMD_BUF_OFFSET);
        // ublk_ch_mmap: queue q's descriptors at q * round_up(UBLK_MAX_QUEUE_DEPTH * 24, PAGE_SIZE), the queue's
        // own depth rounded up to a page long
        assertEquals(0, IoDescriptor.mapOffset(0, 4096));
        assertEquals(3 * 98304L, IoDescriptor.mapOffset(3, 4096));
        assertEquals(2 * 131072L, IoDescriptor.mapOffset(2, 65536));
        assertEquals(4096, IoDescriptor.mapLength(128, 4096));
        assertEquals(8192, IoDescriptor.mapLength(171, 4096));
    }
}
