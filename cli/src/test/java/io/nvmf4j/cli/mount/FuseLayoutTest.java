package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.mount.fuse.FileInfoBits;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_args;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_conn_info;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_entry_param;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_file_info;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_ops;
import io.nvmf4j.cli.mount.fuse.ffi.stat;
import io.nvmf4j.cli.mount.fuse.ffi.timespec;
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
 * The generated libfuse layouts and the hand-placed {@code fuse_file_info} bitfields against gcc's view of the
 * same headers: a C program (below) is compiled with {@code gcc -D_FILE_OFFSET_BITS=64 -DFUSE_USE_VERSION=35
 * -I/usr/include/fuse3} and prints {@code offsetof}/{@code sizeof} of every member the mount code touches, and for
 * each bitfield the bit that setting it to 1 turns on in the 32-bit word at {@link FileInfoBits#BITS_OFFSET}.
 * Needs gcc and libfuse3-dev (.ci/run installs them); without them the test fails, it does not skip.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FuseLayoutTest {

    private static final String PROGRAM = """
            #include <fuse_lowlevel.h>
            #include <stdio.h>
            #include <stddef.h>
            #include <string.h>
            #include <stdint.h>
            #define S(t) printf("sizeof %s %zu\\n", #t, sizeof(struct t))
            #define O(t,f) printf("offsetof %s.%s %zu\\n", #t, #f, offsetof(struct t, f))
            #define BIT(f) do { struct fuse_file_info fi; uint32_t w; memset(&fi, 0, sizeof fi); fi.f = 1; \\
                for (size_t i = 0; i < sizeof fi; i++) if (((unsigned char *)&fi)[i]) printf("byte %s %zu\\n", #f, i); \\
                memcpy(&w, (char *)&fi + 4, 4); printf("bit %s %d\\n", #f, __builtin_ctz(w)); } while (0)
            int main(void) {
              S(fuse_file_info); O(fuse_file_info,flags); O(fuse_file_info,fh); O(fuse_file_info,lock_owner);
              O(fuse_file_info,poll_events);
              BIT(writepage); BIT(direct_io); BIT(keep_cache); BIT(flush); BIT(nonseekable); BIT(flock_release);
              BIT(cache_readdir); BIT(noflush);
              S(fuse_entry_param); O(fuse_entry_param,ino); O(fuse_entry_param,generation); O(fuse_entry_param,attr);
              O(fuse_entry_param,attr_timeout); O(fuse_entry_param,entry_timeout);
              S(stat); O(stat,st_ino); O(stat,st_mode); O(stat,st_nlink); O(stat,st_size); O(stat,st_blksize);
              O(stat,st_blocks); O(stat,st_atim); O(stat,st_mtim); O(stat,st_ctim); S(timespec); O(timespec,tv_sec);
              S(fuse_conn_info); O(fuse_conn_info,capable); O(fuse_conn_info,want); O(fuse_conn_info,max_background);
              O(fuse_conn_info,congestion_threshold);
              S(fuse_args); O(fuse_args,argc); O(fuse_args,argv); O(fuse_args,allocated);
              S(fuse_lowlevel_ops); O(fuse_lowlevel_ops,init); O(fuse_lowlevel_ops,lookup); O(fuse_lowlevel_ops,getattr);
              O(fuse_lowlevel_ops,setattr); O(fuse_lowlevel_ops,open); O(fuse_lowlevel_ops,read);
              O(fuse_lowlevel_ops,write); O(fuse_lowlevel_ops,flush); O(fuse_lowlevel_ops,release);
              O(fuse_lowlevel_ops,fsync); O(fuse_lowlevel_ops,readdir); O(fuse_lowlevel_ops,fallocate);
              printf("const FUSE_CAP_ASYNC_DIO %d\\n", FUSE_CAP_ASYNC_DIO);
              printf("const FUSE_CAP_ASYNC_READ %d\\n", FUSE_CAP_ASYNC_READ);
              return 0;
            }
            """;

    static Map<String, Long> gcc = new HashMap<>();

    @BeforeAll
    static void compileAndRun(@TempDir Path dir) throws IOException, InterruptedException {
        Path c = Files.writeString(dir.resolve("layout.c"), PROGRAM);
        Path exe = dir.resolve("layout");
        run(List.of("gcc", "-D_FILE_OFFSET_BITS=64", "-DFUSE_USE_VERSION=35", "-I/usr/include/fuse3", "-o",
                exe.toString(), c.toString()));
        for (String line : run(List.of(exe.toString())).split("\n")) {
            String[] f = line.split(" ");
            gcc.put(f[0] + " " + f[1], Long.parseLong(f[2]));
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
        Long v = gcc.get(key);
        assertTrue(v != null, "gcc printed no '" + key + "'");
        return v;
    }

    @Test
    void fileInfoFieldsMatchTheCLayout() {
        assertEquals(c("sizeof fuse_file_info"), fuse_file_info.sizeof());
        assertEquals(c("offsetof fuse_file_info.flags"), fuse_file_info.flags$offset());
        assertEquals(c("offsetof fuse_file_info.fh"), fuse_file_info.fh$offset());
        assertEquals(c("offsetof fuse_file_info.lock_owner"), fuse_file_info.lock_owner$offset());
        assertEquals(c("offsetof fuse_file_info.poll_events"), fuse_file_info.poll_events$offset());
    }

    @Test
    void fileInfoBitfieldsAreWhereFileInfoBitsSetsThem() {
        String[] names = {"writepage", "direct_io", "keep_cache", "flush", "nonseekable", "flock_release",
            "cache_readdir", "noflush"};
        int[] bits = {FileInfoBits.WRITEPAGE, FileInfoBits.DIRECT_IO, FileInfoBits.KEEP_CACHE, FileInfoBits.FLUSH,
            FileInfoBits.NONSEEKABLE, FileInfoBits.FLOCK_RELEASE, FileInfoBits.CACHE_READDIR, FileInfoBits.NOFLUSH};
        for (int i = 0; i < names.length; i++) {
            assertEquals(c("bit " + names[i]), bits[i], names[i]);
            // the one byte gcc's store touched lies in the word FileInfoBits writes
            long at = c("byte " + names[i]);
            assertEquals(FileInfoBits.BITS_OFFSET + bits[i] / 8, at, names[i]);
        }
    }

    @Test
    void settingDirectIoTouchesExactlyTheBitGccSets() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fi = fuse_file_info.allocate(a);
            fi.fill((byte) 0);
            FileInfoBits.set(fi, FileInfoBits.DIRECT_IO, true);
            byte[] bytes = fi.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            for (int i = 0; i < bytes.length; i++) {
                int expected = i == c("byte direct_io") ? 1 << (c("bit direct_io") % 8) : 0;
                assertEquals(expected, bytes[i] & 0xFF, "byte " + i);
            }
            assertTrue(FileInfoBits.get(fi, FileInfoBits.DIRECT_IO));
            FileInfoBits.set(fi, FileInfoBits.DIRECT_IO, false);
            assertEquals(0, fi.get(java.lang.foreign.ValueLayout.JAVA_INT, FileInfoBits.BITS_OFFSET));
        }
    }

    @Test
    void entryStatAndConnInfoMatchTheCLayout() {
        assertEquals(c("sizeof fuse_entry_param"), fuse_entry_param.sizeof());
        assertEquals(c("offsetof fuse_entry_param.ino"), fuse_entry_param.ino$offset());
        assertEquals(c("offsetof fuse_entry_param.generation"), fuse_entry_param.generation$offset());
        assertEquals(c("offsetof fuse_entry_param.attr"), fuse_entry_param.attr$offset());
        assertEquals(c("offsetof fuse_entry_param.attr_timeout"), fuse_entry_param.attr_timeout$offset());
        assertEquals(c("offsetof fuse_entry_param.entry_timeout"), fuse_entry_param.entry_timeout$offset());
        assertEquals(c("sizeof stat"), stat.sizeof());
        assertEquals(c("offsetof stat.st_ino"), stat.st_ino$offset());
        assertEquals(c("offsetof stat.st_mode"), stat.st_mode$offset());
        assertEquals(c("offsetof stat.st_nlink"), stat.st_nlink$offset());
        assertEquals(c("offsetof stat.st_size"), stat.st_size$offset());
        assertEquals(c("offsetof stat.st_blksize"), stat.st_blksize$offset());
        assertEquals(c("offsetof stat.st_blocks"), stat.st_blocks$offset());
        assertEquals(c("offsetof stat.st_atim"), stat.st_atim$offset());
        assertEquals(c("offsetof stat.st_mtim"), stat.st_mtim$offset());
        assertEquals(c("offsetof stat.st_ctim"), stat.st_ctim$offset());
        assertEquals(c("sizeof timespec"), timespec.sizeof());
        assertEquals(c("offsetof timespec.tv_sec"), timespec.tv_sec$offset());
        assertEquals(c("sizeof fuse_conn_info"), fuse_conn_info.sizeof());
        assertEquals(c("offsetof fuse_conn_info.capable"), fuse_conn_info.capable$offset());
        assertEquals(c("offsetof fuse_conn_info.want"), fuse_conn_info.want$offset());
        assertEquals(c("offsetof fuse_conn_info.max_background"), fuse_conn_info.max_background$offset());
        assertEquals(c("offsetof fuse_conn_info.congestion_threshold"),
                fuse_conn_info.congestion_threshold$offset());
        assertEquals(c("sizeof fuse_args"), fuse_args.sizeof());
        assertEquals(c("offsetof fuse_args.argv"), fuse_args.argv$offset());
        assertEquals(c("offsetof fuse_args.allocated"), fuse_args.allocated$offset());
        assertEquals(c("const FUSE_CAP_ASYNC_DIO"), fuse_lowlevel_h.FUSE_CAP_ASYNC_DIO());
        assertEquals(c("const FUSE_CAP_ASYNC_READ"), fuse_lowlevel_h.FUSE_CAP_ASYNC_READ());
    }

    @Test
    void theUpcallTableHasOurOperationsWhereLibfuseCallsThem() {
        assertEquals(c("sizeof fuse_lowlevel_ops"), fuse_lowlevel_ops.sizeof());
        assertEquals(c("offsetof fuse_lowlevel_ops.init"), fuse_lowlevel_ops.init$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.lookup"), fuse_lowlevel_ops.lookup$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.getattr"), fuse_lowlevel_ops.getattr$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.setattr"), fuse_lowlevel_ops.setattr$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.open"), fuse_lowlevel_ops.open$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.read"), fuse_lowlevel_ops.read$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.write"), fuse_lowlevel_ops.write$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.flush"), fuse_lowlevel_ops.flush$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.release"), fuse_lowlevel_ops.release$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.fsync"), fuse_lowlevel_ops.fsync$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.readdir"), fuse_lowlevel_ops.readdir$offset());
        assertEquals(c("offsetof fuse_lowlevel_ops.fallocate"), fuse_lowlevel_ops.fallocate$offset());
    }
}
