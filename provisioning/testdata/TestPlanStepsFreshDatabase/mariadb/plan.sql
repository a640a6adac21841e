-- create-table: create outbox table shop.outbox
CREATE TABLE IF NOT EXISTS `shop`.`outbox` (
  `id` varchar(36) NOT NULL,
  `aggregatetype` varchar(255) NOT NULL,
  `aggregateid` varchar(255) NOT NULL,
  `type` varchar(255) NOT NULL,
  `payload` longblob,
  `schemaversion` int NOT NULL,
  `relay_seq` bigint NOT NULL AUTO_INCREMENT,
  KEY `outbox_relay_order_idx` (`relay_seq`),
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
-- create-user: create user 'dbz'@'%'
CREATE USER IF NOT EXISTS 'dbz'@'%' IDENTIFIED BY '********';
-- grant: grant the binlog privileges to 'dbz'@'%'
GRANT RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'dbz'@'%';
-- grant: let 'dbz'@'%' read the outbox database
GRANT SELECT ON `shop`.* TO 'dbz'@'%';
