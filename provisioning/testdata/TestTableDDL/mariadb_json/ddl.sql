CREATE TABLE IF NOT EXISTS `shop`.`outbox` (
  `id` varchar(36) NOT NULL,
  `aggregatetype` varchar(255) NOT NULL,
  `aggregateid` varchar(255) NOT NULL,
  `type` varchar(255) NOT NULL,
  `payload` longtext,
  `tracingspancontext` varchar(512),
  `schemaversion` int NOT NULL,
  `relay_seq` bigint NOT NULL AUTO_INCREMENT,
  KEY `outbox_relay_order_idx` (`relay_seq`),
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
