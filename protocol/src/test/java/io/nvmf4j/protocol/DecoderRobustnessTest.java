package io.nvmf4j.protocol;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.FabricsCommand;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.protocol.rdma.RdmaTsas;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Network input reaches these decoders unfiltered: every truncation and five hundred random buffers per decoder must end in
 * a decoded value or a {@link MalformedStructureException}, never an IndexOutOfBounds or another runtime error.
 * The seed is fixed so that a failure reproduces.
 */
class DecoderRobustnessTest {

    private static Map<String, Decoder> decoders() {
        Map<String, Decoder> m = new LinkedHashMap<>();
        m.put("SGL descriptor", new Decoder(16, SglDescriptor::decode));
        m.put("fabrics command", new Decoder(64, s -> FabricsCommand.decode(SubmissionQueueEntry.wrap(s))));
        m.put("Connect data", new Decoder(1024, ConnectData::decode));
        m.put("NQN field", new Decoder(256, Nqn::decode));
        m.put("RDMA CM request", new Decoder(32, RdmaCmRequest::decode));
        m.put("RDMA CM accept", new Decoder(32, RdmaCmAccept::decode));
        m.put("RDMA CM reject", new Decoder(4, RdmaCmReject::decode));
        m.put("RDMA TSAS", new Decoder(256, RdmaTsas::decode));
        m.put("completion entry", new Decoder(16, s -> Status.fromField(CompletionQueueEntry.wrap(s).statusField())));
        return m;
    }

    record Decoder(int size, Consumer<MemorySegment> decode) {
    }

    @Test
    void everyTruncationIsAPreciseError() {
        decoders().forEach((name, d) -> {
            for (int length = 0; length < d.size(); length++) {
                MemorySegment s = MemorySegment.ofArray(new byte[length]);
                try {
                    d.decode().accept(s);
                    fail(name + " decoded " + length + " of " + d.size() + " bytes");
                } catch (MalformedStructureException expected) {
                    assertTrue(expected.getMessage().contains("needs") || expected.getMessage().contains("bytes"),
                            name + ": " + expected.getMessage());
                }
            }
        });
    }

    @Test
    void randomBytesDecodeOrFailWithAMessage() {
        Random random = new Random(0x6E766D66L);
        decoders().forEach((name, d) -> {
            for (int i = 0; i < 500; i++) {
                byte[] bytes = new byte[d.size()];
                random.nextBytes(bytes);
                if (name.equals("fabrics command") && i % 2 == 0) {
                    bytes[0] = 0x7F;                                        // reach the FCTYPE dispatch
                    bytes[4] = (byte) new int[] {0, 1, 4, 8}[random.nextInt(4)];
                }
                if (i % 3 == 0 && d.size() >= 16) {
                    bytes[d.size() == 64 ? 39 : 15] = (byte) (random.nextInt(6) << 4); // mostly defined SGL types
                }
                try {
                    d.decode().accept(MemorySegment.ofArray(bytes));
                } catch (MalformedStructureException expected) {
                    assertTrue(!expected.getMessage().isBlank(), name);
                } catch (RuntimeException e) {
                    fail(name + " threw " + e + " for " + Hex.of(bytes));
                }
            }
        });
    }
}
