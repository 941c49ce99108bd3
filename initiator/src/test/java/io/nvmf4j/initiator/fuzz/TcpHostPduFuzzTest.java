package io.nvmf4j.initiator.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nvmf4j.initiator.tcp.HostPduStream;
import io.nvmf4j.testsupport.FuzzSupport;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generative fuzzing of the NVMe/TCP host's PDU parser ({@code PduReceiver}) and of what the queue does with the
 * PDUs it takes apart (a CapsuleResp completes its command, a C2HData is placed into the read's memory, an R2T is
 * answered with H2CData, a C2HTermReq ends the connection), fed the byte stream a controller sends after a real
 * connection set-up on loopback ({@link HostPduStream}), with a read and a write outstanding.
 *
 * <p>Property: any byte sequence either parses, or ends the connection with the IOException the queue's poller turns
 * into a connection failure (a {@code PduException} where the host refuses a PDU, with the H2CTermReq it names),
 * never another exception; no byte lands outside the read's memory and the write's data is never written to; the
 * parser allocates nothing in proportion to a length the controller claims.
 *
 * <p>Input: byte 0 bit 0 asks for header digests, bit 1 for data digests, bits 2..7 times 7 are the size of the
 * pieces the stream arrives in (0: all at once); the rest is the stream. The read is CID 1000h (4096 bytes), the
 * write CID 1001h (16384 bytes, by R2T; MAXH2CDATA 8192). Every input connects a queue of its own (about a
 * millisecond), so this target runs at hundreds of inputs/s, not tens of thousands.
 */
class TcpHostPduFuzzTest {

    @FuzzTest(maxDuration = "10m")
    void pduStream(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            if (input.length == 0) {
                return;
            }
            boolean headerDigest = (input[0] & 1) != 0;
            boolean dataDigest = (input[0] & 2) != 0;
            int piece = ((input[0] & 0xFF) >>> 2) * 7;
            byte[] stream = Arrays.copyOfRange(input, 1, input.length);
            HostPduStream host;
            try {
                host = HostPduStream.open(headerDigest, dataDigest);
            } catch (Exception e) {
                throw new IllegalStateException("the queue did not connect to the controller double", e);
            }
            IOException ended = null;
            try (host) {
                host.receive(stream, piece);
            } catch (IOException e) {
                ended = e; // the connection ends: the documented way out, once the memory is checked
            }
            if (!host.memoryIntact()) {
                throw new AssertionError("a write outside the read's memory, or into the write's data, for "
                        + FuzzSupport.abbreviated(input));
            }
            if (ended != null) {
                throw ended;
            }
        }, IOException.class);
    }

    // ---- short generative run in mvn verify --------------------------------------------------------------------

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void fewHundredMutationsOfTheCorpus() {
        FuzzSupport.shortRun(getClass(), "pduStream", 4400, FuzzSupport.shortRunInputs(3000) / 3, 5, this::pduStream);
    }
}
