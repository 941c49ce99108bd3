package io.nvmf4j.bench.jmh;

import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpTaggedHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;
import io.nvmf4j.verbs.softiwarp.mpa.Crc32c;
import io.nvmf4j.verbs.softiwarp.rdmap.RdmapOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FPDU framing (RFC 5044 MPA over RFC 5041 DDP, RFC 5040 RDMAP) the way softiwarp's Transmitter frames a copied
 * payload - header, payload copied out of registered memory, pad, CRC32C trailer, all in one direct staging buffer -
 * and the way the receiver checks one: header fields, length, CRC. With and without CRC (MPA negotiates it; siw
 * defaults to off, RFC 5044 4.4), for a 64-byte capsule Send and a 4 KiB tagged RDMA Write / Read Response.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class FpduFramingBenchmark {

    @Param({"64", "4096"})
    public int payload;

    @Param({"false", "true"})
    public boolean crc;

    private final Crc32c crc32c = new Crc32c();
    private ByteBuffer staging;
    private MemorySegment stagingSegment;
    private MemorySegment registered;
    private int msn;

    @Setup
    public void setup() {
        staging = ByteBuffer.allocateDirect(DdpUntaggedHeader.LENGTH + 8192 + 8);
        stagingSegment = MemorySegment.ofBuffer(staging);
        registered = Arena.ofAuto().allocate(64 * 1024, 4096);
        for (long i = 0; i < registered.byteSize(); i++) {
            registered.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
        }
        frameSend();
    }

    /** A Send (untagged, queue 0): the capsule path. Returns the FPDU length. */
    @Benchmark
    public int frameSend() {
        msn++;
        DdpUntaggedHeader.encode(staging, RdmapOpcode.SEND.code(), true, 0, DdpUntaggedHeader.QN_SEND, msn, 0,
                payload);
        return finish(DdpUntaggedHeader.LENGTH);
    }

    /** An RDMA Write (tagged): the data path of reads at the target. */
    @Benchmark
    public int frameRdmaWrite() {
        msn++;
        DdpTaggedHeader.encode(staging, RdmapOpcode.RDMA_WRITE.code(), true, 0x1234_5601, 0x1000L * msn, payload);
        return finish(DdpTaggedHeader.LENGTH);
    }

    private int finish(int headerLength) {
        MemorySegment.copy(registered, (msn & 7) * 4096L, stagingSegment, headerLength, payload);
        int end = headerLength + payload;
        int pad = DdpHeader.padLength(end - DdpHeader.MPA_HEADER_LENGTH);
        for (int i = 0; i < pad; i++) {
            staging.put(end + i, (byte) 0);
        }
        int value = 0;
        if (crc) {
            crc32c.reset();
            crc32c.update(staging, 0, end + pad);
            value = crc32c.wireValue();
        }
        staging.putInt(end + pad, value);
        return end + pad + DdpHeader.MPA_CRC_LENGTH;
    }

    /** Receive side of the Send framed in setup: header fields, ULPDU length, pad, CRC check. */
    @Benchmark
    public long parseSend() {
        int mpaLength = DdpHeader.mpaLength(staging);
        int total = DdpHeader.MPA_HEADER_LENGTH + mpaLength;
        int pad = DdpHeader.padLength(mpaLength);
        long acc = (long) DdpHeader.opcode(staging) + (DdpHeader.tagged(staging) ? 1 : 0) + (DdpHeader.last(staging) ? 2 : 0)
                + DdpUntaggedHeader.msn(staging) + DdpUntaggedHeader.queueNumber(staging);
        if (crc) {
            crc32c.reset();
            crc32c.update(staging, 0, total + pad);
            if (crc32c.wireValue() != staging.getInt(total + pad)) {
                throw new IllegalStateException("CRC mismatch");
            }
        }
        return acc + total;
    }

}
