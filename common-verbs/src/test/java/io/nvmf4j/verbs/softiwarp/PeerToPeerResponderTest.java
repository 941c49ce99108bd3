package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;
import io.nvmf4j.verbs.softiwarp.rdmap.RdmapOpcode;
import io.nvmf4j.verbs.softiwarp.rdmap.ReadRequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * softiwarp as responder to an RFC 6581 peer-to-peer request that offers only the Read RTR (siw_proc_mpareq then
 * picks MPA_V2_RDMA_READ_RTR): a raw socket plays the initiator, sends the zero-length RDMA Read Request RTR
 * (sink STag 1 as siw_qp_mpa_rts), gets the zero-length Read Response, then a Send lands in a posted receive.
 */
@Timeout(30)
class PeerToPeerResponderTest {
    @Test
    void readRtrIsAnsweredWithAZeroLengthReadResponseAndTheConnectionWorks() throws Exception {
        try (Arena arena = Arena.ofShared();
             RdmaDevice device = RdmaProviders.byName("softiwarp").openDevice(null);
             RdmaListener listener = device.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 4);
             Socket raw = new Socket()) {
            ProtectionDomain pd = device.allocatePd();
            CompletionQueue cq = device.createCompletionQueue(16);
            MemoryRegion inbox = pd.register(arena.allocate(64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    ConnectRequest r = listener.accept(Duration.ofSeconds(5));
                    return r.accept(new AcceptParams(pd, cq, cq, QueuePairAttributes.defaults(), new byte[0],
                            qp -> qp.postReceive(new ReceiveWorkRequest().wrId(42).local(inbox, 0, 64))));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            raw.connect(listener.localAddress(), 5000);
            raw.setSoTimeout(5000);
            OutputStream out = raw.getOutputStream();
            DataInputStream in = new DataInputStream(raw.getInputStream());
            // request: H, rev 2, pd 4: IRD 0x8000|4 (P2P), ORD 0x4000|4 (Read RTR only)
            out.write(Hex.bytes("4d504120494420526571204672616d65" + "10020004" + "80044004"));
            byte[] reply = new byte[24];
            in.readFully(reply);
            assertEquals("4d504120494420526570204672616d65" + "10020004", Hex.of(reply).substring(0, 40));
            int irdWord = ((reply[20] & 0xff) << 8) | (reply[21] & 0xff);
            int ordWord = ((reply[22] & 0xff) << 8) | (reply[23] & 0xff);
            assertEquals(0x8000, irdWord & 0x8000, "P2P echoed");
            assertEquals(0x4000, ordWord & 0xc000, "Read RTR chosen");
            RdmaConnection server = accepted.get(5, TimeUnit.SECONDS);

            ByteBuffer rreq = ByteBuffer.allocate(ReadRequestHeader.LENGTH + 4);
            ReadRequestHeader.encode(rreq, 1, 1, 0, 0, 0, 0);
            out.write(rreq.array());
            byte[] rresp = new byte[20];
            in.readFully(rresp);
            // zero-length Read Response: MPA len 14, T|L|v1, v1|op 2, sink STag 1, TO 0, CRC field 0
            assertEquals("000e" + "c142" + "00000001" + "0000000000000000" + "00000000", Hex.of(rresp));

            ByteBuffer send = ByteBuffer.allocate(DdpUntaggedHeader.LENGTH + 4 + 4);
            DdpUntaggedHeader.encode(send, RdmapOpcode.SEND.code(), true, 0, DdpUntaggedHeader.QN_SEND, 1, 0, 4);
            send.putInt(DdpUntaggedHeader.LENGTH, 0xcafef00d);
            out.write(send.array());
            WorkCompletion[] wc = {new WorkCompletion()};
            assertEquals(1, cq.await(wc, 5, TimeUnit.SECONDS));
            assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0]::toString);
            assertEquals(42, wc[0].wrId());
            assertEquals(4, wc[0].byteLength());
            server.close();
        }
    }
}
