// The independent cross-check of coapcc's TCP model (docs/tcp.md, `coapcc reproduce
// crosscheck-tcp`): the firmware workload of scenarios/firmware/tcp-*.toml on ns-3's own TCP
// (TcpCubic or TcpLinuxReno, SACK, PRR recovery, timestamps off, IW 10, delayed ACK 40 ms /
// 2 segments, RTO min 200 ms, initial RTO 1 s) over point-to-point links with the testbed's
// rates, delays and byte-limited drop-tail queues. Where ns-3's defaults differ from Linux and
// an attribute exists, it is set to Linux's value: DelAckTimeout 40 ms (ns-3: 200 ms; Linux's
// TCP_DELACK_MIN), MinRto 200 ms (ns-3: 1 s; TCP_RTO_MIN), ConnTimeout 1 s (ns-3: 3 s;
// TCP_TIMEOUT_INIT; the initial RTT estimate is 1 s in both), DataRetries 15 (ns-3: 6 RTOs in a row abort the
// connection; Linux's tcp_retries2), TcpCubic's HyStartDelayMax 16 ms (ns-3: 1 s; Linux's
// HYSTART_DELAY_MAX). What ns-3 3.44 cannot be set to (no RACK, no F-RTO, no quick ACKs, RFC
// 6298's RTO floor, a 60 s RTO cap) is run on coapcc's side as its matched configuration
// (docs/tcp.md, "Cross-check against ns-3").
//
// Topology: client i --(100 Mbit/s, 0 delay)-- A ==wireless== R --(rest of path)-- server.
// The wireless link is two point-to-point links between A and R with static routes, so that
// each direction has its own rate, delay and drop-tail queue shared by every client:
// uplink A->R 60 kbit/s, 200 ms; downlink R->A 30 kbit/s, 400 ms. The rest of the path is a
// fixed 15 ms each way (coapcc draws U[10, 20] ms per packet). Rates and queue sizes are
// raised by 298/296 so that ns-3's 2-byte PPP header costs no link time or buffer space, as
// coapcc's IP packets carry none. The wireless devices' MTU is the testbed's 296 bytes: ns-3
// stops a device queue (and the traffic-control layer then drops) once it cannot take one more
// MTU-sized packet, so with PPP's default 1 500 bytes a 28 200-byte buffer held 91 packets of
// 296 bytes instead of coapcc's 95. No queue disc sits above the devices (ns-3 would install
// one of its own), so the drop-tail device queue is the whole buffer, as in coapcc.
// Link errors: a time-driven Gilbert-Elliott model written here (GeErrorModel: exponential
// sojourns, mean 4 s good / 1 s bad, loss 0 %/50 % "medium" or 2 %/80 % "high", drawn per
// packet at the receiving end of each wireless direction), as coapcc's default.
//
// The application is CoAP over TCP reduced to its byte counts: both ends send their CSM on
// connection, the client sends its GET once the server's CSM is in, the server then sends the
// response. Output, one line per client and replication:
//   replication,client,setup_s,fct_s
// (FCT = GET sent -> last response byte received; set-up = connect() -> server CSM received;
// empty when the flow did not get that far.)
//
// Usage: coapcc-ns3-tcp --cc=cubic|reno --clients=N --bufferBytes=B --errors=none|medium|high
//          --replications=R --startWindowMs=W --clientCsm=6 --serverCsm=5 --request=6
//          --response=102408 [--seed=1] [--stopS=3600] [--trace=true]

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

// A two-state Markov error model whose state changes in time (exponential sojourns).
class GeErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("GeErrorModel").SetParent<ErrorModel>().AddConstructor<GeErrorModel>();
        return tid;
    }

    void Setup(double lossGood, double lossBad, double meanGoodS, double meanBadS)
    {
        m_lossGood = lossGood;
        m_lossBad = lossBad;
        m_meanGood = meanGoodS;
        m_meanBad = meanBadS;
        m_u = CreateObject<UniformRandomVariable>();
        m_e = CreateObject<ExponentialRandomVariable>();
        // Start in the stationary distribution.
        m_bad = m_u->GetValue() < meanBadS / (meanGoodS + meanBadS);
        m_next = Seconds(Sojourn());
    }

  private:
    double Sojourn()
    {
        return m_e->GetValue(m_bad ? m_meanBad : m_meanGood, 0.0);
    }

    bool DoCorrupt(Ptr<Packet>) override
    {
        Time now = Simulator::Now();
        while (now >= m_next)
        {
            m_bad = !m_bad;
            m_next += Seconds(Sojourn());
        }
        return m_u->GetValue() < (m_bad ? m_lossBad : m_lossGood);
    }

    void DoReset() override
    {
    }

    double m_lossGood{0};
    double m_lossBad{0};
    double m_meanGood{4};
    double m_meanBad{1};
    bool m_bad{false};
    Time m_next;
    Ptr<UniformRandomVariable> m_u;
    Ptr<ExponentialRandomVariable> m_e;
};

struct Sizes
{
    uint32_t clientCsm;
    uint32_t serverCsm;
    uint32_t request;
    uint32_t response;
};

struct Flow
{
    Ptr<Socket> client;
    double start{-1};
    double setup{-1};
    double get{-1};
    double done{-1};
    uint64_t clientRx{0};
    uint64_t serverRx{0};
    bool responseSent{false};
    uint32_t timeouts{0};
    uint32_t retransmissions{0};
    bool aborted{false};
    // Per end (0 client, 1 server): whether it sent data yet and the highest byte sent.
    bool sentAny[2]{false, false};
    SequenceNumber32 highestSent[2];
};

static std::vector<Flow> g_flows;
// With --trace, the server's congestion window (segments), congestion state and data
// retransmissions of every flow go to stderr as `trace,TIME_S,FLOW,EVENT,VALUE` lines.
static bool g_trace = false;

static void
Trace(uint32_t flow, const char* event, double value)
{
    if (g_trace)
    {
        std::fprintf(stderr,
                     "trace,%.6f,%u,%s,%g\n",
                     Simulator::Now().GetSeconds(),
                     flow,
                     event,
                     value);
    }
}
static uint64_t g_drops = 0;
static uint32_t g_maxCwnd = 0;

static void
QueueDrop(Ptr<const Packet>)
{
    ++g_drops;
}

static uint32_t g_maxQueue = 0;

static void
QueueBytes(uint32_t, uint32_t now)
{
    g_maxQueue = std::max(g_maxQueue, now);
}

static void
CwndChange(uint32_t flow, uint32_t, uint32_t now)
{
    g_maxCwnd = std::max(g_maxCwnd, now);
    Trace(flow, "cwnd", now / 256.0);
}
static std::map<uint32_t, uint32_t> g_flowOfAddress;
static Sizes g_sizes;

static void
SendBytes(Ptr<Socket> s, uint32_t bytes)
{
    if (s->Send(Create<Packet>(bytes)) < 0)
    {
        NS_FATAL_ERROR("the send buffer cannot hold " << bytes << " bytes");
    }
}

static void
ServerRecv(Ptr<Socket> s)
{
    Address from;
    s->GetPeerName(from);
    Flow& f = g_flows[g_flowOfAddress[InetSocketAddress::ConvertFrom(from).GetIpv4().Get()]];
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        f.serverRx += p->GetSize();
    }
    if (!f.responseSent && f.serverRx >= g_sizes.clientCsm + g_sizes.request)
    {
        f.responseSent = true;
        SendBytes(s, g_sizes.response);
    }
}

static uint64_t g_segTx = 0;

// `at` is flow * 2 + end (0 client, 1 server).
static void
SegTx(uint32_t at, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    if (at / 2 >= g_flows.size())
    {
        return;
    }
    Flow& f = g_flows[at / 2];
    uint32_t end = at % 2;
    if (end == 1)
    {
        ++g_segTx;
    }
    SequenceNumber32 last = h.GetSequenceNumber() + p->GetSize();
    if (f.sentAny[end] && last <= f.highestSent[end])
    {
        ++f.retransmissions;
        if (end == 1)
        {
            Trace(at / 2, "retransmit", h.GetSequenceNumber().GetValue());
        }
    }
    else
    {
        f.highestSent[end] = last;
        f.sentAny[end] = true;
    }
}

static void
CongState(uint32_t at, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    uint32_t flow = at / 2;
    if (at % 2 == 1)
    {
        Trace(flow, "state", now);
    }
}

// A retransmission timer expiry doubles the RTO (TcpSocketBase::ReTxTimeout, and the SYN
// timer's backoff); an RTT sample sets it from SRTT and RTTVAR, which does not give exactly
// twice the old value. (`CongState` would miss the timeouts after the first one in a row: a
// traced value reports changes only.) An expiry with the RTO already at ns-3's 60 s cap
// changes nothing and is not counted.
static void
RtoChange(uint32_t at, Time old, Time now)
{
    if (at / 2 < g_flows.size() && now > old &&
        (now == old + old || (now == Seconds(60) && old + old > now)))
    {
        ++g_flows[at / 2].timeouts;
        if (at % 2 == 1)
        {
            Trace(at / 2, "timeout", now.GetSeconds());
        }
    }
}

static void
ServerClosed(Ptr<Socket>)
{
}

static void
ServerAborted(uint32_t flow, Ptr<Socket>)
{
    if (flow < g_flows.size())
    {
        g_flows[flow].aborted = true;
    }
}

static void
ServerAccept(Ptr<Socket> s, const Address& from)
{
    uint32_t flow = g_flowOfAddress[InetSocketAddress::ConvertFrom(from).GetIpv4().Get()];
    s->SetRecvCallback(MakeCallback(&ServerRecv));
    s->SetCloseCallbacks(MakeCallback(&ServerClosed), MakeBoundCallback(&ServerAborted, flow));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChange, flow));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&SegTx, flow * 2 + 1));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, flow * 2 + 1));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoChange, flow * 2 + 1));
    SendBytes(s, g_sizes.serverCsm);
}

static void
ClientRecv(Ptr<Socket> s)
{
    Address self;
    s->GetSockName(self);
    Flow& f = g_flows[g_flowOfAddress[InetSocketAddress::ConvertFrom(self).GetIpv4().Get()]];
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        f.clientRx += p->GetSize();
    }
    double now = Simulator::Now().GetSeconds();
    if (f.setup < 0 && f.clientRx >= g_sizes.serverCsm)
    {
        f.setup = now;
        f.get = now;
        SendBytes(s, g_sizes.request);
    }
    if (f.done < 0 && f.clientRx >= g_sizes.serverCsm + uint64_t(g_sizes.response))
    {
        f.done = now;
    }
}

static void
ClientConnected(Ptr<Socket> s)
{
    SendBytes(s, g_sizes.clientCsm);
}

static void
ClientFailed(Ptr<Socket>)
{
}

static void
StartClient(uint32_t i, Ipv4Address server)
{
    Flow& f = g_flows[i];
    f.start = Simulator::Now().GetSeconds();
    f.client->SetConnectCallback(MakeCallback(&ClientConnected), MakeCallback(&ClientFailed));
    f.client->SetRecvCallback(MakeCallback(&ClientRecv));
    f.client->TraceConnectWithoutContext("Tx", MakeBoundCallback(&SegTx, i * 2));
    f.client->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoChange, i * 2));
    f.client->Connect(InetSocketAddress(server, 5683));
}

static std::string
Fmt(double from, double to)
{
    if (from < 0 || to < 0)
    {
        return "";
    }
    char b[64];
    std::snprintf(b, sizeof b, "%.6f", to - from);
    return b;
}

static void
RunOne(const std::string& cc,
       uint32_t clients,
       uint64_t bufferBytes,
       const std::string& errors,
       double startWindowS,
       double stopS,
       uint32_t replication)
{
    RngSeedManager::SetRun(replication + 1);
    g_flows.assign(clients, Flow());
    g_flowOfAddress.clear();

    NodeContainer clientNodes;
    clientNodes.Create(clients);
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> r = CreateObject<Node>();
    Ptr<Node> server = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(clientNodes);
    stack.Install(a);
    stack.Install(r);
    stack.Install(server);

    // PPP adds 2 bytes to coapcc's 296-byte packets: the rates and queues grow by 298/296.
    const double ppp = 298.0 / 296.0;
    auto queue = [&](uint64_t bytes) {
        return QueueSizeValue(QueueSize(std::to_string(uint64_t(bytes * ppp)) + "B"));
    };

    PointToPointHelper lan;
    lan.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    lan.SetChannelAttribute("Delay", StringValue("0ms"));
    lan.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("100000p")));

    PointToPointHelper up;
    up.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(60000 * ppp))));
    up.SetChannelAttribute("Delay", StringValue("200ms"));
    up.SetDeviceAttribute("Mtu", UintegerValue(296));
    up.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", queue(bufferBytes));
    PointToPointHelper down;
    down.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(30000 * ppp))));
    down.SetChannelAttribute("Delay", StringValue("400ms"));
    down.SetDeviceAttribute("Mtu", UintegerValue(296));
    down.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", queue(bufferBytes));
    PointToPointHelper rest;
    rest.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    rest.SetChannelAttribute("Delay", StringValue("15ms"));
    rest.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("100000p")));

    Ipv4AddressHelper addr;
    NetDeviceContainer all;
    std::vector<Ipv4InterfaceContainer> clientIfs;
    for (uint32_t i = 0; i < clients; ++i)
    {
        NetDeviceContainer d = lan.Install(clientNodes.Get(i), a);
        addr.SetBase(Ipv4Address((10u << 24) | (1u << 16) | ((i + 1) << 8)), "255.255.255.0");
        clientIfs.push_back(addr.Assign(d));
        all.Add(d);
        g_flowOfAddress[clientIfs.back().GetAddress(0).Get()] = i;
    }
    NetDeviceContainer upDev = up.Install(a, r);
    addr.SetBase("10.2.1.0", "255.255.255.0");
    Ipv4InterfaceContainer upIf = addr.Assign(upDev);
    NetDeviceContainer downDev = down.Install(r, a);
    addr.SetBase("10.2.2.0", "255.255.255.0");
    Ipv4InterfaceContainer downIf = addr.Assign(downDev);
    NetDeviceContainer restDev = rest.Install(r, server);
    addr.SetBase("10.3.0.0", "255.255.255.0");
    Ipv4InterfaceContainer restIf = addr.Assign(restDev);
    all.Add(upDev);
    all.Add(downDev);
    all.Add(restDev);
    // No queue discipline above the devices: the drop-tail device queues are the buffers.
    TrafficControlHelper tch;
    tch.Uninstall(all);
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        Ptr<TrafficControlLayer> tc = all.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(all.Get(i)))
        {
            NS_FATAL_ERROR("a queue disc is still installed on a device");
        }
    }

    // Static routes: upstream over `up`, downstream over `down`.
    Ipv4StaticRoutingHelper srh;
    auto routing = [&](Ptr<Node> n) { return srh.GetStaticRouting(n->GetObject<Ipv4>()); };
    for (uint32_t i = 0; i < clients; ++i)
    {
        routing(clientNodes.Get(i))->SetDefaultRoute(clientIfs[i].GetAddress(1), 1);
    }
    Ptr<Ipv4> aIp = a->GetObject<Ipv4>();
    Ptr<Ipv4> rIp = r->GetObject<Ipv4>();
    routing(a)->AddNetworkRouteTo("10.3.0.0",
                                  "255.255.255.0",
                                  upIf.GetAddress(1),
                                  aIp->GetInterfaceForDevice(upDev.Get(0)));
    routing(r)->AddNetworkRouteTo("10.1.0.0",
                                  "255.255.0.0",
                                  downIf.GetAddress(1),
                                  rIp->GetInterfaceForDevice(downDev.Get(0)));
    routing(server)->SetDefaultRoute(restIf.GetAddress(0), 1);

    if (errors != "none")
    {
        double good = errors == "high" ? 0.02 : 0.0;
        double bad = errors == "high" ? 0.8 : 0.5;
        for (Ptr<NetDevice> rx : {upDev.Get(1), downDev.Get(1)})
        {
            Ptr<GeErrorModel> em = CreateObject<GeErrorModel>();
            em->Setup(good, bad, 4.0, 1.0);
            rx->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }

    Ptr<Socket> listener = Socket::CreateSocket(server, TcpSocketFactory::GetTypeId());
    listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), 5683));
    listener->Listen();
    listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeCallback(&ServerAccept));

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < clients; ++i)
    {
        g_flows[i].client = Socket::CreateSocket(clientNodes.Get(i), TcpSocketFactory::GetTypeId());
        g_flows[i].client->Bind();
        double at = startWindowS > 0 ? start->GetValue(0.0, startWindowS) : 0.0;
        Simulator::Schedule(Seconds(at), &StartClient, i, restIf.GetAddress(1));
    }
    g_drops = 0;
    g_maxCwnd = 0;
    for (Ptr<NetDevice> d : {upDev.Get(0), downDev.Get(0)})
    {
        d->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&QueueDrop));
        DynamicCast<PointToPointNetDevice>(d)->GetQueue()->TraceConnectWithoutContext(
            "BytesInQueue",
            MakeCallback(&QueueBytes));
    }
    // Without a queue disc, a packet meeting a stopped device queue (full for one more
    // MTU-sized packet) is dropped by the traffic-control layer, not by the device.
    for (Ptr<Node> n : {a, r})
    {
        n->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop",
                                                                       MakeCallback(&QueueDrop));
    }
    Simulator::Stop(Seconds(stopS));
    Simulator::Run();
    for (uint32_t i = 0; i < clients; ++i)
    {
        const Flow& f = g_flows[i];
        std::printf("%u,%u,%s,%s,%u,%u,%d\n",
                    replication,
                    i,
                    Fmt(f.start, f.setup).c_str(),
                    Fmt(f.get, f.done).c_str(),
                    f.timeouts,
                    f.retransmissions,
                    f.aborted ? 1 : 0);
    }
    std::fprintf(stderr,
                 "replication %u: %lu packets dropped at a full wireless buffer, %lu data segments "
                 "sent by the server, largest cwnd %u bytes, largest queue %u bytes\n",
                 replication,
                 (unsigned long)g_drops,
                 (unsigned long)g_segTx,
                 g_maxCwnd,
                 g_maxQueue);
    g_segTx = 0;
    g_maxQueue = 0;
    // The sockets' trace sources may still fire while the simulator is destroyed: the flows
    // they index must outlive it.
    Simulator::Destroy();
    g_flows.clear();
}

int
main(int argc, char* argv[])
{
    std::string cc = "cubic";
    std::string errors = "none";
    uint32_t clients = 1;
    uint64_t bufferBytes = 28200;
    uint32_t replications = 1;
    double startWindowMs = 0;
    uint32_t seed = 1;
    double stopS = 3600;
    g_sizes = Sizes{6, 5, 6, 102408};
    CommandLine cmd(__FILE__);
    cmd.AddValue("cc", "cubic or reno", cc);
    cmd.AddValue("clients", "clients", clients);
    cmd.AddValue("bufferBytes", "drop-tail buffer of each wireless direction, bytes", bufferBytes);
    cmd.AddValue("errors", "none, medium or high", errors);
    cmd.AddValue("replications", "replications", replications);
    cmd.AddValue("startWindowMs", "clients start at uniform offsets in [0, this)", startWindowMs);
    cmd.AddValue("seed", "ns-3 seed", seed);
    cmd.AddValue("trace", "write the server's cwnd, states and retransmissions to stderr", g_trace);
    cmd.AddValue("stopS", "the simulation ends at this time, s (coapcc's time_limit_ms)", stopS);
    cmd.AddValue("clientCsm", "client CSM bytes", g_sizes.clientCsm);
    cmd.AddValue("serverCsm", "server CSM bytes", g_sizes.serverCsm);
    cmd.AddValue("request", "GET bytes", g_sizes.request);
    cmd.AddValue("response", "response bytes", g_sizes.response);
    cmd.Parse(argc, argv);
    if (cc != "cubic" && cc != "reno")
    {
        std::fprintf(stderr, "--cc must be cubic or reno\n");
        return 2;
    }
    if (errors != "none" && errors != "medium" && errors != "high")
    {
        std::fprintf(stderr, "--errors must be none, medium or high\n");
        return 2;
    }
    RngSeedManager::SetSeed(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(cc == "cubic" ? TcpCubic::GetTypeId() : TcpLinuxReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(256));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(15));
    Config::SetDefault("ns3::TcpCubic::HyStartDelayMax", TimeValue(MilliSeconds(16)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 21));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(65535));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));

    if (!(stopS > 0))
    {
        std::fprintf(stderr, "--stopS must be positive\n");
        return 2;
    }
    std::printf("replication,client,setup_s,fct_s,timeouts,retransmissions,aborted\n");
    for (uint32_t rep = 0; rep < replications; ++rep)
    {
        RunOne(cc, clients, bufferBytes, errors, startWindowMs / 1000.0, stopS, rep);
    }
    return 0;
}
