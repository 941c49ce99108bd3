package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmfException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Moves an LBA range between a stream and a namespace in chunks through one registered buffer (zero-copy on the
 * fabric side), so a large file never sits in memory whole.
 */
final class BlockTransfer {

    /** Bytes per chunk: large enough to amortise the round trip, small enough for any MDTS split. */
    static final int CHUNK_BYTES = 1 << 20;

    private BlockTransfer() {
    }

    /**
     * Bytes of the buffer a transfer of {@code ns} uses: a chunk, or one block when the namespace's blocks are larger
     * (the block size is the controller's: up to MDTS, which may be several MiB).
     */
    static long bufferBytes(Namespace ns) {
        return Math.max(CHUNK_BYTES, ns.blockSize());
    }

    /** Reads {@code blocks} blocks from {@code slba} into {@code out}; returns the bytes written. */
    static long read(Namespace ns, IoBuffer buffer, long slba, long blocks, OutputStream out)
            throws NvmfException, IOException {
        long bs = ns.blockSize();
        long perChunk = Math.max(1, buffer.size() / bs);
        byte[] staging = new byte[(int) Math.min(buffer.size(), perChunk * bs)];
        long done = 0;
        while (done < blocks) {
            long n = Math.min(perChunk, blocks - done);
            ns.read(slba + done, n, buffer, 0);
            int bytes = (int) (n * bs);
            MemorySegment.copy(buffer.segment(), ValueLayout.JAVA_BYTE, 0, staging, 0, bytes);
            out.write(staging, 0, bytes);
            done += n;
        }
        out.flush();
        return blocks * bs;
    }

    /**
     * Writes {@code in} to the namespace from {@code slba}; the last partial block is padded with zeros. Stops at
     * {@code maxBlocks} (null: at the end of the input). Returns the number of blocks written.
     */
    static long write(Namespace ns, IoBuffer buffer, long slba, Long maxBlocks, InputStream in)
            throws NvmfException, IOException {
        long bs = ns.blockSize();
        long perChunk = Math.max(1, buffer.size() / bs);
        byte[] staging = new byte[(int) Math.min(buffer.size(), perChunk * bs)];
        long written = 0;
        while (maxBlocks == null || written < maxBlocks) {
            long want = maxBlocks == null ? perChunk : Math.min(perChunk, maxBlocks - written);
            int wantBytes = (int) (want * bs);
            int got = in.readNBytes(staging, 0, wantBytes);
            if (got == 0) {
                break;
            }
            long n = (got + bs - 1) / bs;
            int padded = (int) (n * bs);
            java.util.Arrays.fill(staging, got, padded, (byte) 0);
            MemorySegment.copy(staging, 0, buffer.segment(), ValueLayout.JAVA_BYTE, 0, padded);
            ns.write(slba + written, n, buffer, 0);
            written += n;
            if (got < wantBytes) {
                break;
            }
        }
        if (maxBlocks != null && written < maxBlocks) {
            throw new CommandFailure("write: the input ended after " + written + " of " + maxBlocks + " blocks");
        }
        return written;
    }
}
