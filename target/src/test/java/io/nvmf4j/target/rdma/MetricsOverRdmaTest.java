package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.metrics.TargetMetrics;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The transport feeds {@link TargetMetrics}: operations, bytes, latency, errors, queue depth and connections. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsOverRdmaTest {

    @TempDir
    Path dir;

    @Test
    void readsWritesAndConnectionsAreCountedPerNamespace() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TargetMetrics metrics = new TargetMetrics(registry);
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir, 8, metrics);
             ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
            assertEquals(0, admin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN, RdmaTargetFixture.HOST)
                    .status());
            assertEquals(0, admin.propertySet(0x14, ScriptedRdmaHost.CC_ENABLE_NVM).status());
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = ScriptedRdmaHost.connect(fixture.address, 1, 32)) {
                assertEquals(0, io.connectCommand(1, 31, cntlid, RdmaTargetFixture.SUBNQN, RdmaTargetFixture.HOST)
                        .status());
                assertEquals(2.0, registry.get("nvmf4j.connections").tag("subsystem", RdmaTargetFixture.SUBNQN)
                        .gauge().value());
                for (int i = 0; i < 3; i++) {
                    SubmissionQueueEntry w = io.readWrite(0x01, 1, i * 8L, 8);
                    io.keyed(w, 0, 4096, false);
                    assertEquals(0, io.execute().status());
                }
                SubmissionQueueEntry r = io.readWrite(0x02, 1, 0, 8);
                io.keyed(r, 0, 4096, false);
                assertEquals(0, io.execute().status());
                // out of range: an error
                SubmissionQueueEntry bad = io.readWrite(0x02, 1, (RdmaTargetFixture.NS_BYTES / 512) + 1, 1);
                io.keyed(bad, 0, 512, false);
                assertTrue(io.execute().status() != 0);
            }
            assertEquals(3.0, registry.get("nvmf4j.io.operations").tag("nsid", "1").tag("op", "write").counter()
                    .count());
            assertEquals(2.0, registry.get("nvmf4j.io.operations").tag("nsid", "1").tag("op", "read").counter()
                    .count());
            assertEquals(3 * 4096.0, registry.get("nvmf4j.io.bytes").tag("op", "write").counter().count());
            assertEquals(4096.0, registry.get("nvmf4j.io.bytes").tag("op", "read").counter().count());
            assertEquals(1.0, registry.get("nvmf4j.io.errors").tag("nsid", "1").counter().count());
            assertEquals(3, registry.get("nvmf4j.io.latency").tag("op", "write").timer().count());
            assertTrue(registry.get("nvmf4j.io.latency").tag("op", "write").timer().max(TimeUnit.NANOSECONDS) > 0);
            assertEquals(0.0, registry.get("nvmf4j.io.queue.depth").tag("nsid", "1").gauge().value());
            assertEquals(2.0, registry.get("nvmf4j.connects").counter().count());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (registry.get("nvmf4j.connections").gauge().value() > 1.0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1.0, registry.get("nvmf4j.connections").gauge().value(), "the I/O queue left");
        }
    }
}
