BEGIN TRANSACTION;
CREATE TABLE archived (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    wall REAL NOT NULL
);
CREATE TABLE clocks (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    timer_id INTEGER,
    remaining REAL,
    warn_at REAL NOT NULL DEFAULT 0,
    paused INTEGER NOT NULL,
    updated REAL NOT NULL
);
INSERT INTO "clocks" VALUES('t1',16,15.0,0.0,1,1.79640846181992244723e+09);
INSERT INTO "clocks" VALUES('t2',NULL,NULL,0.0,0,1.79640846183057212824e+09);
CREATE TABLE events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    wall REAL NOT NULL,
    source TEXT NOT NULL,
    client_id TEXT,
    undone INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seq)
);
INSERT INTO "events" VALUES('t1',1,'{"type":"start_game"}',1.79640846147957205774e+09,'host','host/c1',0);
INSERT INTO "events" VALUES('t1',2,'{"type":"table.stream","on":true,"delay":30}',1.79640846149425506593e+09,'host','host/c2',0);
INSERT INTO "events" VALUES('t1',3,'{"type":"timer_expired","timer":1}',1.7964084614981436729e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',4,'{"type":"timer_expired","timer":2}',1.79640846150310492515e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',5,'{"type":"timer_expired","timer":3}',1.7964084615061450005e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',6,'{"type":"timer_expired","timer":4}',1.79640846150829672808e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',7,'{"type":"nominate","by":1,"target":5}',1.79640846151984930035e+09,'1','1/c3',0);
INSERT INTO "events" VALUES('t1',8,'{"type":"table.pause"}',1.79640846152151918407e+09,'host','host/c4',0);
INSERT INTO "events" VALUES('t1',9,'{"type":"table.resume"}',1.79640846152280163764e+09,'host','host/c5',0);
INSERT INTO "events" VALUES('t1',10,'{"type":"table.add_time","seconds":20}',1.79640846154215145114e+09,'host','host/c6',0);
INSERT INTO "events" VALUES('t1',11,'{"type":"pass","seat":1}',1.79640846154608821872e+09,'1','1/c7',0);
INSERT INTO "events" VALUES('t1',12,'{"type":"nominate","by":2,"target":6}',1.79640846154769802094e+09,'2','2/c8',0);
INSERT INTO "events" VALUES('t1',13,'{"type":"foul","seat":7}',1.79640846154824948303e+09,'host','host/c9',0);
INSERT INTO "events" VALUES('t1',14,'{"type":"pass","seat":2}',1.79640846154917263989e+09,'host','host/c10',1);
INSERT INTO "events" VALUES('t1',15,'{"type":"table.undo","seq":14}',1.7964084615517926216e+09,'host','host/c11',0);
INSERT INTO "events" VALUES('t1',16,'{"type":"timer_expired","timer":6}',1.79640846174456262586e+09,'host','host/c12',0);
INSERT INTO "events" VALUES('t1',17,'{"type":"timer_expired","timer":7}',1.79640846174603080746e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',18,'{"type":"timer_expired","timer":8}',1.79640846174724388125e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',19,'{"type":"timer_expired","timer":9}',1.79640846174816894535e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',20,'{"type":"timer_expired","timer":10}',1.7964084617505550385e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',21,'{"type":"timer_expired","timer":11}',1.79640846175170826913e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',22,'{"type":"timer_expired","timer":12}',1.7964084617523519993e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',23,'{"type":"timer_expired","timer":13}',1.79640846175311279294e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',24,'{"type":"timer_expired","timer":14}',1.7964084617537128926e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',25,'{"type":"timer_expired","timer":15}',1.79640846175918459889e+09,'clock',NULL,0);
INSERT INTO "events" VALUES('t1',26,'{"type":"vote","voter":7,"candidate":5}',1.79640846176055336003e+09,'7','7/c13',0);
INSERT INTO "events" VALUES('t1',27,'{"type":"vote","voter":8,"candidate":6}',1.79640846176117968558e+09,'8','8/c14',0);
INSERT INTO "events" VALUES('t1',28,'{"type":"table.name","seat":3,"name":"Olena"}',1.79640846176164197924e+09,'host',NULL,0);
INSERT INTO "events" VALUES('t1',29,'{"type":"table.reissue","seats":[2,"host",2]}',1.79640846176244544981e+09,'host',NULL,0);
INSERT INTO "events" VALUES('t1',30,'{"type":"table.pause"}',1.79640846176299452782e+09,'host','host/c15',0);
INSERT INTO "events" VALUES('t2',1,'{"type":"start_game"}',1.79640846176622915263e+09,'host',NULL,0);
INSERT INTO "events" VALUES('t2',2,'{"type":"end_game","winner":"mafia"}',1.79640846176766347881e+09,'host','host/e',0);
INSERT INTO "events" VALUES('t2',3,'{"type":"table.successor","table":"t3"}',1.79640846176984333992e+09,'host',NULL,0);
CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    created REAL NOT NULL
);
INSERT INTO "tables" VALUES('t1','{"preset":"online","language":"uk","seats":10,"names":[],"manual":false,"seed":1,"overrides":{},"roles":{"1":"don","2":"mafia","3":"mafia","4":"sheriff"}}',1.79640846143098878865e+09);
INSERT INTO "tables" VALUES('t2','{"preset":"online","language":"uk","seats":10,"names":[],"manual":false,"seed":1,"overrides":{},"roles":{"1":"don","2":"mafia","3":"mafia","4":"sheriff"}}',1.79640846143280863761e+09);
CREATE UNIQUE INDEX events_client_id
    ON events (table_id, client_id) WHERE client_id IS NOT NULL;
COMMIT;
