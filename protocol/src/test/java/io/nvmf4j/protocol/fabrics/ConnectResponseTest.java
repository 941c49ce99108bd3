package io.nvmf4j.protocol.fabrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.StatusCode;
import org.junit.jupiter.api.Test;

/** SPDK struct spdk_nvmf_fabric_connect_rsp: success {u16 cntlid; u16 authreq}, invalid {u16 ipo; u8 iattr;}. */
class ConnectResponseTest {

    @Test
    void successfulConnectCarriesTheControllerIdInDw0() {
        CompletionQueueEntry cqe = CompletionQueueEntry.allocate()
                .dw0(ConnectResponse.success(ControllerId.of(1))).sqHead(1).cid(0);
        assertEquals(Hex.norm("01000000 00000000 0100 0000 0000 0000"), Hex.of(cqe.segment()));
        assertEquals(ControllerId.of(1), ConnectResponse.controllerId(cqe.dw0()));
        assertFalse(ConnectResponse.authenticationRequired(cqe.dw0()));
        assertTrue(ConnectResponse.authenticationRequired(0x0002_0001));
    }

    @Test
    void invalidSubsystemNqnPointsIntoTheConnectData() {
        // nvmet: IPO = offsetof(struct nvmf_connect_data, subsysnqn) = 256, IATTR = 1
        ConnectResponse.InvalidParameter p = ConnectResponse.InvalidParameter.inData(ConnectData.OFFSET_SUBNQN);
        CompletionQueueEntry cqe = CompletionQueueEntry.allocate().dw0(p.toDw0());
        cqe.statusField(StatusCode.CONNECT_INVALID_PARAM.withDnr().toField());
        assertEquals(Hex.norm("00010100 00000000 0000 0000 0000 0483"), Hex.of(cqe.segment()));
        assertEquals(p, ConnectResponse.InvalidParameter.fromDw0(cqe.dw0()));
        assertEquals("Connect data byte 256", p.toString());
    }

    @Test
    void invalidQidPointsIntoTheCommand() {
        ConnectResponse.InvalidParameter p = ConnectResponse.InvalidParameter.inCommand(ConnectCommand.OFFSET_QID);
        assertEquals(0x0000_002A, p.toDw0());
        assertEquals(p, ConnectResponse.InvalidParameter.fromDw0(0x2A));
    }

    @Test
    void authenticationRequiredSetsAuthreqAtrBit17() {
        int dw0 = ConnectResponse.success(ControllerId.of(5), true);
        assertEquals(0x0002_0005, dw0);
        assertTrue(ConnectResponse.authenticationRequired(dw0));
        assertFalse(ConnectResponse.secureChannelRequired(dw0));
        assertEquals(5, ConnectResponse.success(
                ControllerId.of(5), false));
    }
}
