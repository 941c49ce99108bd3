package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.Wire;

/**
 * The command-specific DW0 of a Connect response (NVMe-oF 1.1, "Connect Command and Response"; SPDK
 * {@code struct spdk_nvmf_fabric_connect_rsp}):
 * <ul>
 *   <li>on success: CNTLID in bits 15:0, AUTHREQ in bits 18:16 (bit 17 ATR authentication required, bit 18 ASCR
 *       secure channel required);</li>
 *   <li>with status Connect Invalid Parameters (SCT 1h, SC 82h): IPO, the byte offset of the invalid parameter,
 *       in bits 15:0 and IATTR in bits 23:16: 0 = the offset is within the SQE, 1 = within the Connect data.
 *       Linux {@code nvmf_log_connect_error()} reads it this way, and nvmet fills it with
 *       {@code offsetof(struct nvmf_connect_data, subsysnqn)} and friends.</li>
 * </ul>
 */
public final class ConnectResponse {

    public static final int AUTHREQ_ATR = 1 << 17;
    public static final int AUTHREQ_ASCR = 1 << 18;

    /** IATTR value: the invalid parameter is in the Connect SQE. */
    public static final int IATTR_COMMAND = 0;
    /** IATTR value: the invalid parameter is in the Connect data. */
    public static final int IATTR_DATA = 1;

    private ConnectResponse() {
    }

    /** DW0 of a successful Connect: the controller id and no authentication requirement. */
    public static int success(ControllerId cntlid) {
        return cntlid.value();
    }

    /**
     * DW0 of a successful Connect that asks for in-band authentication: AUTHREQ.ATR (bit 17) when the host must
     * authenticate before any other command on this queue (Linux nvmet_connect_result(): {@code
     * NVME_CONNECT_AUTHREQ_ATR} when the controller has a host key).
     */
    public static int success(ControllerId cntlid, boolean authenticationRequired) {
        return cntlid.value() | (authenticationRequired ? AUTHREQ_ATR : 0);
    }

    /** AUTHREQ.ASCR (bit 18): secure channel concatenation required (nvmf4j never asks for it). */
    public static boolean secureChannelRequired(int dw0) {
        return (dw0 & AUTHREQ_ASCR) != 0;
    }

    /** The controller id in DW0 of a successful Connect. */
    public static ControllerId controllerId(int dw0) {
        return ControllerId.of(dw0 & 0xFFFF);
    }

    public static boolean authenticationRequired(int dw0) {
        return (dw0 & AUTHREQ_ATR) != 0;
    }

    /**
     * Where the invalid parameter of a Connect Invalid Parameters response lies.
     *
     * @param inConnectData IATTR: true for the Connect data, false for the SQE
     * @param offset        IPO, the byte offset of the parameter
     */
    public record InvalidParameter(boolean inConnectData, int offset) {

        public InvalidParameter {
            Wire.checkUnsigned("IPO", offset, 16);
        }

        public static InvalidParameter inCommand(int sqeOffset) {
            return new InvalidParameter(false, sqeOffset);
        }

        public static InvalidParameter inData(int dataOffset) {
            return new InvalidParameter(true, dataOffset);
        }

        /** DW0 of the response: IPO in bits 15:0, IATTR in bits 23:16. */
        public int toDw0() {
            return offset | (inConnectData ? IATTR_DATA : IATTR_COMMAND) << 16;
        }

        public static InvalidParameter fromDw0(int dw0) {
            return new InvalidParameter((dw0 >>> 16 & 0xFF) == IATTR_DATA, dw0 & 0xFFFF);
        }

        @Override
        public String toString() {
            return (inConnectData ? "Connect data" : "Connect SQE") + " byte " + offset;
        }
    }
}
