package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A read of the socket that returns less than it asked for took everything the kernel had: the receiver then ends
 * its poll once the bytes are processed, instead of reading once more for an EAGAIN. That extra system call sat on
 * the path of every command a target receives and every response a host receives (Receiver.drained).
 */
@Timeout(60)
class ShortReadTest {

    private static SoftiwarpConfig inline() {
        SoftiwarpConfig d = SoftiwarpConfig.fromSystemProperties();
        return new SoftiwarpConfig(d.engineSpinNanos(), d.cqSpinNanos(), 1, d.maxFpduPayload(), false, false,
                Duration.ofSeconds(5), d.copyThreshold(), true);
    }

    @Test
    void aPingPongOfSmallSendsNeverReadsTheSocketForNothingAfterData() throws Exception {
        SoftiwarpDevice serverDevice = new SoftiwarpDevice(inline());
        SoftiwarpDevice clientDevice = new SoftiwarpDevice(inline());
        try (LoopbackPair p = new LoopbackPair(serverDevice, clientDevice, null, null, new byte[0], new byte[0])) {
            SendWorkRequest ping = new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND).local(p.clientMr, 0, 64);
            SendWorkRequest pong = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND).local(p.serverMr, 0, 64);
            ReceiveWorkRequest serverRecv = new ReceiveWorkRequest().wrId(10).local(p.serverMr, 4096, 64);
            ReceiveWorkRequest clientRecv = new ReceiveWorkRequest().wrId(11).local(p.clientMr, 4096, 64);
            Receiver serverReceiver = ((SoftiwarpQueuePair) p.server.queuePair()).receiver;
            Receiver clientReceiver = ((SoftiwarpQueuePair) p.client.queuePair()).receiver;
            WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
            for (int i = 0; i < 200; i++) {
                p.pollPingPong(serverRecv, clientRecv, ping, pong, wc);
            }
            // each 64-byte Send arrives in one segment, far less than a read asks for: whichever thread read it (the
            // polling consumer or its engine), the poll ended with the bytes, not with a read that found none
            assertEquals(0, serverReceiver.emptyReadsAfterData, "the server's receiver read for nothing after data");
            assertEquals(0, clientReceiver.emptyReadsAfterData, "the client's receiver read for nothing after data");
        }
    }
}
