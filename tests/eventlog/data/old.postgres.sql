--
-- PostgreSQL database dump
--

\restrict 0kGF4oCwo5Uh4afhH4dyM0AvLHFFDL4rRzGUxKWdu0ugFeUuzqsje3z2J9GBlBx

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: archived; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.archived (
    table_id text NOT NULL,
    wall double precision NOT NULL
);


--
-- Name: clocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.clocks (
    table_id text NOT NULL,
    timer_id integer,
    remaining double precision,
    warn_at double precision DEFAULT 0 NOT NULL,
    paused boolean NOT NULL,
    updated double precision NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    table_id text NOT NULL,
    seq integer NOT NULL,
    record text NOT NULL,
    wall double precision NOT NULL,
    source text NOT NULL,
    client_id text,
    undone boolean DEFAULT false NOT NULL
);


--
-- Name: leases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leases (
    table_id text NOT NULL,
    owner text NOT NULL,
    epoch bigint NOT NULL,
    expires timestamp with time zone NOT NULL,
    heartbeat timestamp with time zone NOT NULL,
    url text DEFAULT ''::text NOT NULL
);


--
-- Name: tables; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tables (
    id text NOT NULL,
    settings text NOT NULL,
    created double precision NOT NULL
);


--
-- Data for Name: archived; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.archived (table_id, wall) FROM stdin;
finished	1796407851.5031729
early	1796407851.561258
\.


--
-- Data for Name: clocks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.clocks (table_id, timer_id, remaining, warn_at, paused, updated) FROM stdin;
finished	\N	\N	0	f	1796407851.5031438
early	2	10	0	f	1796407851.5612385
voting	16	13.5	0	t	1796407851.5726678
751603177c	\N	\N	0	f	1796407851.572739
\.


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.events (table_id, seq, record, wall, source, client_id, undone) FROM stdin;
finished	1	{"type":"start_game"}	1796407851.4089713	host	\N	f
finished	2	{"type":"timer_expired","timer":1}	1796407851.4110343	host	\N	f
finished	3	{"type":"timer_expired","timer":2}	1796407851.4120665	host	\N	f
finished	4	{"type":"timer_expired","timer":3}	1796407851.4129825	host	\N	f
finished	5	{"type":"timer_expired","timer":4}	1796407851.41418	host	\N	f
finished	6	{"type":"timer_expired","timer":5}	1796407851.4151063	host	\N	f
finished	7	{"type":"timer_expired","timer":6}	1796407851.4160936	host	\N	f
finished	8	{"type":"timer_expired","timer":7}	1796407851.41698	host	\N	f
finished	9	{"type":"timer_expired","timer":8}	1796407851.41794	host	\N	f
finished	10	{"type":"timer_expired","timer":9}	1796407851.4188027	host	\N	f
finished	11	{"type":"timer_expired","timer":10}	1796407851.419617	host	\N	f
finished	12	{"type":"timer_expired","timer":11}	1796407851.420513	host	\N	f
finished	13	{"type":"pass","seat":8}	1796407851.421314	host	\N	f
finished	14	{"type":"pass","seat":9}	1796407851.4222467	host	\N	f
finished	15	{"type":"nominate","by":10,"target":9}	1796407851.423054	10	\N	f
finished	16	{"type":"timer_expired","timer":14}	1796407851.4238408	host	\N	f
finished	17	{"type":"shoot","by":1,"target":9}	1796407851.4245703	1	\N	f
finished	18	{"type":"shoot","by":6,"target":9}	1796407851.4253201	6	\N	f
finished	19	{"type":"shoot","by":7,"target":2}	1796407851.4262438	7	\N	f
finished	20	{"type":"timer_expired","timer":15}	1796407851.4270341	host	\N	f
finished	21	{"type":"don_check","target":5}	1796407851.4277828	host	\N	f
finished	22	{"type":"timer_expired","timer":16}	1796407851.4285734	host	\N	f
finished	23	{"type":"sheriff_check","target":2}	1796407851.4294693	host	\N	f
finished	24	{"type":"timer_expired","timer":17}	1796407851.4303637	host	\N	f
finished	25	{"type":"timer_expired","timer":18}	1796407851.4311402	host	\N	f
finished	26	{"type":"nominate","by":3,"target":3}	1796407851.4320865	3	\N	f
finished	27	{"type":"pass","seat":3}	1796407851.432855	host	\N	f
finished	28	{"type":"timer_expired","timer":20}	1796407851.4337091	host	\N	f
finished	29	{"type":"timer_expired","timer":21}	1796407851.4345727	host	\N	f
finished	30	{"type":"nominate","by":6,"target":1}	1796407851.4354327	6	\N	f
finished	31	{"type":"pass","seat":6}	1796407851.436193	host	\N	f
finished	32	{"type":"nominate","by":7,"target":5}	1796407851.4369206	7	\N	f
finished	33	{"type":"pass","seat":7}	1796407851.4376793	host	\N	f
finished	34	{"type":"nominate","by":8,"target":6}	1796407851.4384327	8	\N	f
finished	35	{"type":"pass","seat":8}	1796407851.439275	host	\N	f
finished	36	{"type":"timer_expired","timer":25}	1796407851.4400403	host	\N	f
finished	37	{"type":"timer_expired","timer":26}	1796407851.4408836	host	\N	f
finished	38	{"type":"foul","seat":10}	1796407851.4416475	host	\N	f
finished	39	{"type":"nominate","by":1,"target":7}	1796407851.4424927	1	\N	f
finished	40	{"type":"timer_expired","timer":27}	1796407851.4432654	host	\N	f
finished	41	{"type":"timer_expired","timer":28}	1796407851.4440172	host	\N	f
finished	42	{"type":"vote","voter":3,"candidate":null}	1796407851.4447742	3	\N	f
finished	43	{"type":"vote","voter":6,"candidate":null}	1796407851.4455183	6	\N	f
finished	44	{"type":"vote","voter":8,"candidate":null}	1796407851.4463704	8	\N	f
finished	45	{"type":"vote","voter":5,"candidate":null}	1796407851.4470873	5	\N	f
finished	46	{"type":"vote","voter":1,"candidate":3}	1796407851.4478092	1	\N	f
finished	47	{"type":"vote","voter":4,"candidate":3}	1796407851.4485376	4	\N	f
finished	48	{"type":"vote","voter":9,"candidate":3}	1796407851.4493294	9	\N	f
finished	49	{"type":"vote","voter":7,"candidate":3}	1796407851.4502285	7	\N	f
finished	50	{"type":"vote","voter":10,"candidate":3}	1796407851.4509437	10	\N	f
finished	51	{"type":"vote","voter":2,"candidate":null}	1796407851.4519162	2	\N	f
finished	52	{"type":"timer_expired","timer":29}	1796407851.452829	host	\N	f
finished	53	{"type":"timer_expired","timer":30}	1796407851.4536848	host	\N	f
finished	54	{"type":"timer_expired","timer":31}	1796407851.454617	host	\N	f
finished	55	{"type":"timer_expired","timer":32}	1796407851.45546	host	\N	f
finished	56	{"type":"timer_expired","timer":33}	1796407851.4561992	host	\N	f
finished	57	{"type":"pass","seat":3}	1796407851.4568737	host	\N	f
finished	58	{"type":"shoot","by":1,"target":5}	1796407851.4576824	1	\N	f
finished	59	{"type":"shoot","by":6,"target":5}	1796407851.4585335	6	\N	f
finished	60	{"type":"shoot","by":7,"target":5}	1796407851.4593585	7	\N	f
finished	61	{"type":"timer_expired","timer":35}	1796407851.4602127	host	\N	f
finished	62	{"type":"timer_expired","timer":36}	1796407851.4609647	host	\N	f
finished	63	{"type":"timer_expired","timer":37}	1796407851.4616761	host	\N	f
finished	64	{"type":"timer_expired","timer":38}	1796407851.4626186	host	\N	f
finished	65	{"type":"timer_expired","timer":39}	1796407851.463483	host	\N	f
finished	66	{"type":"nominate","by":6,"target":9}	1796407851.4643254	6	\N	f
finished	67	{"type":"timer_expired","timer":40}	1796407851.4651942	host	\N	f
finished	68	{"type":"nominate","by":7,"target":4}	1796407851.466135	7	\N	f
finished	69	{"type":"pass","seat":7}	1796407851.466996	host	\N	f
finished	70	{"type":"nominate","by":8,"target":1}	1796407851.4678519	8	\N	f
finished	71	{"type":"timer_expired","timer":42}	1796407851.4687524	host	\N	f
finished	72	{"type":"nominate","by":9,"target":2}	1796407851.4696455	9	\N	f
finished	73	{"type":"timer_expired","timer":43}	1796407851.4706087	host	\N	f
finished	74	{"type":"timer_expired","timer":44}	1796407851.4714556	host	\N	f
finished	75	{"type":"pass","seat":1}	1796407851.4722896	host	\N	f
finished	76	{"type":"timer_expired","timer":46}	1796407851.4730694	host	\N	f
finished	77	{"type":"timer_expired","timer":47}	1796407851.4740143	host	\N	f
finished	78	{"type":"vote","voter":1,"candidate":null}	1796407851.4748287	1	\N	f
finished	79	{"type":"vote","voter":9,"candidate":null}	1796407851.4756773	9	\N	f
finished	80	{"type":"vote","voter":2,"candidate":9}	1796407851.4765072	2	\N	f
finished	81	{"type":"vote","voter":7,"candidate":9}	1796407851.477361	7	\N	f
finished	82	{"type":"vote","voter":4,"candidate":9}	1796407851.4783614	4	\N	f
finished	83	{"type":"vote","voter":10,"candidate":null}	1796407851.4793546	10	\N	f
finished	84	{"type":"vote","voter":6,"candidate":null}	1796407851.4808366	6	\N	f
finished	85	{"type":"vote","voter":8,"candidate":null}	1796407851.4817228	8	\N	f
finished	86	{"type":"timer_expired","timer":48}	1796407851.4826422	host	\N	f
finished	87	{"type":"timer_expired","timer":49}	1796407851.4835172	host	\N	f
finished	88	{"type":"timer_expired","timer":50}	1796407851.4843874	host	\N	f
finished	89	{"type":"timer_expired","timer":51}	1796407851.485205	host	\N	f
finished	90	{"type":"timer_expired","timer":52}	1796407851.486393	host	\N	f
finished	91	{"type":"shoot","by":1,"target":10}	1796407851.4872847	1	\N	f
finished	92	{"type":"shoot","by":6,"target":10}	1796407851.4881787	6	\N	f
finished	93	{"type":"shoot","by":7,"target":10}	1796407851.4891412	7	\N	f
finished	94	{"type":"timer_expired","timer":53}	1796407851.490165	host	\N	f
finished	95	{"type":"table.successor","table":"751603177c"}	1796407851.5018733	host	\N	f
voting	1	{"type":"start_game"}	1796407851.5104077	host	\N	f
voting	2	{"type":"timer_expired","timer":1}	1796407851.5118573	clock	\N	f
voting	3	{"type":"timer_expired","timer":2}	1796407851.5137482	clock	\N	f
voting	4	{"type":"timer_expired","timer":3}	1796407851.5156424	clock	\N	f
voting	5	{"type":"timer_expired","timer":4}	1796407851.517328	clock	\N	f
voting	6	{"type":"nominate","by":1,"target":5}	1796407851.5196695	1	1/1/n	f
voting	7	{"type":"timer_expired","timer":5}	1796407851.5211532	clock	\N	f
voting	8	{"type":"nominate","by":2,"target":6}	1796407851.5223908	2	2/2/n	f
voting	9	{"type":"timer_expired","timer":6}	1796407851.523955	clock	\N	f
voting	10	{"type":"timer_expired","timer":7}	1796407851.525061	clock	\N	f
voting	11	{"type":"timer_expired","timer":8}	1796407851.5306468	clock	\N	f
voting	12	{"type":"timer_expired","timer":9}	1796407851.5323496	clock	\N	f
voting	13	{"type":"timer_expired","timer":10}	1796407851.5340087	clock	\N	f
voting	14	{"type":"timer_expired","timer":11}	1796407851.5353258	clock	\N	f
voting	15	{"type":"timer_expired","timer":12}	1796407851.5369556	clock	\N	f
voting	16	{"type":"timer_expired","timer":13}	1796407851.5385878	clock	\N	f
voting	17	{"type":"timer_expired","timer":14}	1796407851.5402145	clock	\N	f
voting	18	{"type":"timer_expired","timer":15}	1796407851.5418243	clock	\N	f
voting	19	{"type":"vote","voter":7,"candidate":5}	1796407851.5435047	7	7/7/v	f
voting	20	{"type":"vote","voter":8,"candidate":6}	1796407851.5449417	8	8/8/v	f
voting	21	{"type":"vote","voter":9,"candidate":5}	1796407851.5458238	9	9/9/v	t
voting	22	{"type":"table.undo","seq":21}	1796407851.5478137	host	\N	f
voting	23	{"type":"vote","voter":10,"candidate":6}	1796407851.5492084	10	10/10/v	f
voting	24	{"type":"table.pause"}	1796407851.5503974	host	\N	f
early	1	{"type":"start_game"}	1796407851.5565755	host	\N	f
early	2	{"type":"timer_expired","timer":1}	1796407851.5578482	clock	\N	f
early	3	{"type":"foul","seat":3}	1796407851.5596702	host	\N	f
\.


--
-- Data for Name: leases; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.leases (table_id, owner, epoch, expires, heartbeat, url) FROM stdin;
finished	old-server	2	2026-12-04 18:10:53.4932+00	2026-12-04 18:10:51.493201+00	
early	old-server	1	2026-12-04 18:10:53.553643+00	2026-12-04 18:10:51.553644+00	
voting	old-server	1	2026-12-04 18:10:50.57472+00	2026-12-04 18:10:51.507106+00	
751603177c	old-server	1	2026-12-04 18:10:50.574733+00	2026-12-04 18:10:51.569935+00	
\.


--
-- Data for Name: tables; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tables (id, settings, created) FROM stdin;
finished	{"preset":"classic","language":"uk","seats":10,"names":[],"manual":false,"seed":11,"overrides":{},"roles":null}	1796407851.4038303
voting	{"preset":"online","language":"uk","seats":10,"names":["P1","P2","P3","P4","P5","P6","P7","P8","P9","P10"],"manual":false,"seed":1,"overrides":{},"roles":{"1":"don","2":"mafia","3":"mafia","4":"sheriff"},"club":"Клуб","host_name":"Ведущий"}	1796407851.5066247
early	{"preset":"fiim","language":"uk","seats":10,"names":[],"manual":false,"seed":7,"overrides":{},"roles":null}	1796407851.5532706
751603177c	{"preset":"classic","language":"uk","seats":10,"names":[],"manual":false,"seed":1987036023586799919,"overrides":{},"roles":null}	1796407851.5696661
\.


--
-- Name: archived archived_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archived
    ADD CONSTRAINT archived_pkey PRIMARY KEY (table_id);


--
-- Name: clocks clocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clocks
    ADD CONSTRAINT clocks_pkey PRIMARY KEY (table_id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (table_id, seq);


--
-- Name: leases leases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leases
    ADD CONSTRAINT leases_pkey PRIMARY KEY (table_id);


--
-- Name: tables tables_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tables
    ADD CONSTRAINT tables_pkey PRIMARY KEY (id);


--
-- Name: events_client_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX events_client_id ON public.events USING btree (table_id, client_id) WHERE (client_id IS NOT NULL);


--
-- Name: archived archived_table_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archived
    ADD CONSTRAINT archived_table_id_fkey FOREIGN KEY (table_id) REFERENCES public.tables(id);


--
-- Name: clocks clocks_table_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clocks
    ADD CONSTRAINT clocks_table_id_fkey FOREIGN KEY (table_id) REFERENCES public.tables(id);


--
-- Name: events events_table_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_table_id_fkey FOREIGN KEY (table_id) REFERENCES public.tables(id);


--
-- Name: leases leases_table_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leases
    ADD CONSTRAINT leases_table_id_fkey FOREIGN KEY (table_id) REFERENCES public.tables(id);


--
-- PostgreSQL database dump complete
--

\unrestrict 0kGF4oCwo5Uh4afhH4dyM0AvLHFFDL4rRzGUxKWdu0ugFeUuzqsje3z2J9GBlBx

